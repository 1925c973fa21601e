#include "reporter/render/html/svg_charts.h"

#include <algorithm>
#include <string_view>

#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/render/chart_geometry.h"
#include "reporter/render/chart_palette.h"
#include "reporter/render/text_escape.h"
#include "reporter/render/timeline_step.h"

namespace vprof::reporter {
namespace {

// At the chart's font size (12 px sans-serif), about this many pixels a character; a label
// column wider than kChartMaxLabelPx elides its labels in the middle.
constexpr int kLabelCharPx = 7;
constexpr int kLabelPaddingPx = 8;

std::string RankLabel(const std::optional<int32_t>& rank, const std::string& file) {
  return rank ? "rank " + std::to_string(*rank) : file;
}

// One chart being written: its label column as wide as its longest label needs, between
// kChartLabelPx and kChartMaxLabelPx.
struct Chart {
  std::ostream& out;
  int label_px = kChartLabelPx;

  size_t LabelChars() const {
    return static_cast<size_t>((label_px - kLabelPaddingPx) / kLabelCharPx);
  }
};

Chart OpenSvg(std::ostream& out, const std::vector<std::string>& labels, std::string_view label) {
  size_t longest = 0;
  for (const std::string& each : labels) longest = std::max(longest, DisplayWidth(each));
  Chart chart{out};
  chart.label_px = std::clamp(static_cast<int>(longest) * kLabelCharPx + kLabelPaddingPx,
                              kChartLabelPx, kChartMaxLabelPx);
  const int width = chart.label_px + kChartBarPx + kChartValuePx;
  const int height = static_cast<int>(labels.size()) * kChartRowPx + 8;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" shape-rendering=\"crispEdges\" font-family=\"sans-serif\" font-size=\"12\" "
         "role=\"img\" aria-label=\""
      << HtmlEscape(label) << "\">\n";
  return chart;
}

// Bars of row `row` start at the label column's width + x and are centred in the row.
int BarTop(int row) { return row * kChartRowPx + (kChartRowPx - kChartBarHeightPx) / 2; }

void Rect(const Chart& chart, int x, int y, int width, int height, std::string_view colour,
          const std::string& title) {
  if (width <= 0) return;
  chart.out << "<rect x=\"" << chart.label_px + x << "\" y=\"" << y << "\" width=\"" << width
            << "\" height=\"" << height << "\" fill=\"" << colour << "\"><title>"
            << HtmlEscape(title) << "</title></rect>\n";
}

void RowLabel(const Chart& chart, int row, const std::string& label) {
  chart.out << "<text x=\"4\" y=\"" << BarTop(row) + kChartBarHeightPx - 3 << "\">"
            << HtmlEscape(ElideMiddle(label, chart.LabelChars())) << "</text>\n";
}

void RowValue(const Chart& chart, int row, const std::string& value) {
  chart.out << "<text x=\"" << chart.label_px + kChartBarPx + 8 << "\" y=\""
            << BarTop(row) + kChartBarHeightPx - 3 << "\">" << HtmlEscape(value) << "</text>\n";
}

std::vector<std::string> RankLabels(const StepsReport& steps, const std::vector<size_t>& shown) {
  std::vector<std::string> labels;
  for (const size_t index : shown) {
    labels.push_back(RankLabel(steps.ranks[index].rank, steps.ranks[index].file));
  }
  return labels;
}

// The parts of a window that add up to it, in kSegmentStyles order.
std::vector<const SegmentStyle*> WindowStyles() {
  std::vector<const SegmentStyle*> styles;
  for (const SegmentStyle& style : kSegmentStyles) {
    if (style.part_of_window) styles.push_back(&style);
  }
  return styles;
}

const SegmentStyle& OverlappedStyle() {
  return *std::find_if(kSegmentStyles.begin(), kSegmentStyles.end(),
                       [](const SegmentStyle& style) { return !style.part_of_window; });
}

// `times` as stacked segments after `offset_ns`, on a scale where `domain_ns`
// fills the bar, with overlapped comm thin under the bar from the offset.
void SegmentRow(const Chart& chart, int row, const SegmentTimes& times, int64_t offset_ns,
                int64_t domain_ns) {
  const std::vector<const SegmentStyle*> styles = WindowStyles();
  std::vector<double> values = {static_cast<double>(offset_ns)};
  for (const SegmentStyle* style : styles) values.push_back(static_cast<double>(times.*style->ns));
  const std::vector<PixelSpan> spans =
      StackSpans(values, static_cast<double>(domain_ns), kChartBarPx);
  for (size_t i = 0; i < styles.size(); ++i) {
    Rect(chart, spans[i + 1].x, BarTop(row), spans[i + 1].width, kChartBarHeightPx,
         styles[i]->colour,
         std::string(styles[i]->name) + " " + FormatDurationNs(times.*styles[i]->ns));
  }
  const SegmentStyle& overlapped = OverlappedStyle();
  Rect(chart, spans[0].width, BarTop(row) + kChartBarHeightPx + 1,
       PixelWidth(static_cast<double>(times.*overlapped.ns), static_cast<double>(domain_ns),
                  kChartBarPx),
       kChartThinBarHeightPx, overlapped.colour,
       std::string(overlapped.name) + " " + FormatDurationNs(times.*overlapped.ns));
}

}  // namespace

void WriteTimelineSvg(const StepsReport& steps, uint32_t step, const std::vector<size_t>& shown,
                      std::ostream& out) {
  int64_t earliest = INT64_MAX, latest = INT64_MIN;
  for (const RankStepsReport& rank : steps.ranks) {
    if (const RankStepReport* own = RankStep(rank, step)) {
      earliest = std::min(earliest, own->start_ns);
      latest = std::max(latest, own->end_ns);
    }
  }
  if (shown.empty()) return;
  const std::vector<std::string> labels = RankLabels(steps, shown);
  const Chart chart = OpenSvg(out, labels, "timeline of step " + std::to_string(step));
  int row = 0;
  for (const size_t index : shown) {
    const RankStepsReport& rank = steps.ranks[index];
    const RankStepReport* own = RankStep(rank, step);
    RowLabel(chart, row, labels[static_cast<size_t>(row)]);
    SegmentRow(chart, row, own->times, own->start_ns - earliest, latest - earliest);
    RowValue(chart, row,
             "+" + FormatDurationNs(own->start_ns - earliest) + ", window " +
                 FormatDurationNs(own->times.window_ns));
    ++row;
  }
  out << "</svg>\n";
}

void WriteSegmentBarsSvg(const StepsReport& steps, const std::vector<size_t>& shown,
                         std::ostream& out) {
  if (shown.empty()) return;
  const std::vector<std::string> labels = RankLabels(steps, shown);
  const Chart chart = OpenSvg(out, labels, "measured steps per rank");
  int row = 0;
  for (const size_t index : shown) {
    const RankStepsReport& rank = steps.ranks[index];
    RowLabel(chart, row, labels[static_cast<size_t>(row)]);
    SegmentRow(chart, row, rank.total, 0, rank.total.window_ns);
    RowValue(chart, row,
             "window " + FormatDurationNs(rank.total.window_ns) + " over " +
                 std::to_string(rank.steps.size()) + " steps");
    ++row;
  }
  out << "</svg>\n";
}

std::vector<std::string> PhaseNames(const std::vector<ProcessPhasesReport>& phases) {
  std::vector<std::string> names;
  for (const ProcessPhasesReport& process : phases) {
    for (const PhaseReport& phase : process.phases) {
      if (!phase.unmatched && std::find(names.begin(), names.end(), phase.name) == names.end()) {
        names.push_back(phase.name);
      }
    }
  }
  return names;
}

namespace {

// The distinct depths of a process's matched phases, shallowest first: a row each.
std::vector<uint32_t> PhaseDepths(const ProcessPhasesReport& process) {
  std::vector<uint32_t> depths;
  for (const PhaseReport& phase : process.phases) {
    if (!phase.unmatched) depths.push_back(phase.depth);
  }
  std::sort(depths.begin(), depths.end());
  depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
  if (depths.empty()) depths.push_back(0);
  return depths;
}

}  // namespace

void WritePhaseBarsSvg(const std::vector<ProcessPhasesReport>& phases,
                       const std::vector<size_t>& shown, std::ostream& out) {
  if (shown.empty()) return;
  const std::vector<std::string> names = PhaseNames(phases);
  // A row per process and depth: phases nested in others (backward inside train_step) on a
  // row of their own under the process's, so that no bar stacks a phase after the one it is in.
  std::vector<std::string> labels;
  for (const size_t index : shown) {
    const std::string rank = RankLabel(phases[index].rank, phases[index].file);
    const size_t depths = PhaseDepths(phases[index]).size();
    labels.push_back(rank);
    for (size_t lane = 1; lane < depths; ++lane) {
      labels.push_back(rank + (depths > 2 ? ", nested " + std::to_string(lane) : ", nested"));
    }
  }
  const Chart chart = OpenSvg(out, labels, "NVTX phases per rank");
  int row = 0;
  for (const size_t index : shown) {
    const ProcessPhasesReport& process = phases[index];
    const std::vector<uint32_t> depths = PhaseDepths(process);
    // One scale for the process's rows: its span, or a longer row's sum.
    std::vector<int64_t> lane_totals(depths.size(), 0);
    for (const PhaseReport& phase : process.phases) {
      if (phase.unmatched) continue;
      const size_t lane = std::find(depths.begin(), depths.end(), phase.depth) - depths.begin();
      lane_totals[lane] += phase.total_ns;
    }
    const int64_t domain =
        std::max(process.span_ns, *std::max_element(lane_totals.begin(), lane_totals.end()));
    for (size_t lane = 0; lane < depths.size(); ++lane) {
      std::vector<double> values;
      std::vector<std::string_view> colours;
      std::vector<std::string> titles;
      for (const PhaseReport& phase : process.phases) {
        if (phase.unmatched || phase.depth != depths[lane]) continue;
        const size_t colour = std::find(names.begin(), names.end(), phase.name) - names.begin();
        values.push_back(static_cast<double>(phase.total_ns));
        colours.push_back(kPhaseColours[colour % kPhaseColours.size()]);
        titles.push_back(phase.name + " " + FormatDurationNs(phase.total_ns));
      }
      const int64_t total = lane_totals[lane];
      if (lane == 0 && process.span_ns > total) {
        values.push_back(static_cast<double>(process.span_ns - total));
        colours.push_back(kOutsidePhasesColour);
        titles.push_back("outside phases " + FormatDurationNs(process.span_ns - total));
      }
      const std::vector<PixelSpan> spans =
          StackSpans(values, static_cast<double>(domain), kChartBarPx);
      RowLabel(chart, row, labels[static_cast<size_t>(row)]);
      for (size_t i = 0; i < spans.size(); ++i) {
        Rect(chart, spans[i].x, BarTop(row), spans[i].width, kChartBarHeightPx, colours[i],
             titles[i]);
      }
      RowValue(chart, row,
               total > process.span_ns ? "phases overlap: their sum " + FormatDurationNs(total)
               : lane == 0             ? "span " + FormatDurationNs(process.span_ns)
                                       : "inside the row above: " + FormatDurationNs(total));
      ++row;
    }
  }
  out << "</svg>\n";
}

void WriteSkewSvg(const std::vector<CommunicatorReport>& communicators, std::ostream& out) {
  std::vector<std::string> labels;
  int64_t domain = 0;
  for (const CommunicatorReport& comm : communicators) {
    for (const OpReport& op : comm.ops) {
      labels.push_back(FormatHexId(comm.comm_id) + " " + op.op + " " + op.bucket.Label());
      domain = std::max(domain, op.max_arrival_skew_ns);
    }
  }
  if (labels.empty()) return;
  const Chart chart = OpenSvg(out, labels, "collective arrival skew");
  int row = 0;
  for (const CommunicatorReport& comm : communicators) {
    for (const OpReport& op : comm.ops) {
      RowLabel(chart, row, labels[static_cast<size_t>(row)]);
      const std::string mean = "mean " + FormatDurationNs(op.mean_arrival_skew_ns);
      const std::string max = "max " + FormatDurationNs(op.max_arrival_skew_ns);
      Rect(chart, 0, BarTop(row),
           PixelWidth(static_cast<double>(op.max_arrival_skew_ns), static_cast<double>(domain),
                      kChartBarPx),
           kChartBarHeightPx, kSkewMaxColour, max);
      Rect(chart, 0, BarTop(row),
           PixelWidth(static_cast<double>(op.mean_arrival_skew_ns), static_cast<double>(domain),
                      kChartBarPx),
           kChartBarHeightPx, kSkewMeanColour, mean);
      RowValue(chart, row, mean + " / " + max + ", " + std::to_string(op.count) + " calls");
      ++row;
    }
  }
  out << "</svg>\n";
}

}  // namespace vprof::reporter
