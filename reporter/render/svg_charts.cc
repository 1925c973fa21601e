#include "reporter/render/svg_charts.h"

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

constexpr size_t kLabelChars = 34;  // what fits kChartLabelPx at the chart's font size

std::string RankLabel(const std::optional<int32_t>& rank, const std::string& file) {
  return rank ? "rank " + std::to_string(*rank) : file;
}

void OpenSvg(std::ostream& out, int rows, std::string_view label) {
  const int width = kChartLabelPx + kChartBarPx + kChartValuePx;
  const int height = rows * kChartRowPx + 8;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" shape-rendering=\"crispEdges\" font-family=\"sans-serif\" font-size=\"12\" "
         "role=\"img\" aria-label=\""
      << HtmlEscape(label) << "\">\n";
}

// Bars of row `row` start at kChartLabelPx + x and are centred in the row.
int BarTop(int row) { return row * kChartRowPx + (kChartRowPx - kChartBarHeightPx) / 2; }

void Rect(std::ostream& out, int x, int y, int width, int height, std::string_view colour,
          const std::string& title) {
  if (width <= 0) return;
  out << "<rect x=\"" << kChartLabelPx + x << "\" y=\"" << y << "\" width=\"" << width
      << "\" height=\"" << height << "\" fill=\"" << colour << "\"><title>" << HtmlEscape(title)
      << "</title></rect>\n";
}

void RowLabel(std::ostream& out, int row, const std::string& label) {
  out << "<text x=\"4\" y=\"" << BarTop(row) + kChartBarHeightPx - 3 << "\">"
      << HtmlEscape(ElideMiddle(label, kLabelChars)) << "</text>\n";
}

void RowValue(std::ostream& out, int row, const std::string& value) {
  out << "<text x=\"" << kChartLabelPx + kChartBarPx + 8 << "\" y=\""
      << BarTop(row) + kChartBarHeightPx - 3 << "\">" << HtmlEscape(value) << "</text>\n";
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
void SegmentRow(std::ostream& out, int row, const SegmentTimes& times, int64_t offset_ns,
                int64_t domain_ns) {
  const std::vector<const SegmentStyle*> styles = WindowStyles();
  std::vector<double> values = {static_cast<double>(offset_ns)};
  for (const SegmentStyle* style : styles) values.push_back(static_cast<double>(times.*style->ns));
  const std::vector<PixelSpan> spans =
      StackSpans(values, static_cast<double>(domain_ns), kChartBarPx);
  for (size_t i = 0; i < styles.size(); ++i) {
    Rect(out, spans[i + 1].x, BarTop(row), spans[i + 1].width, kChartBarHeightPx, styles[i]->colour,
         std::string(styles[i]->name) + " " + FormatDurationNs(times.*styles[i]->ns));
  }
  const SegmentStyle& overlapped = OverlappedStyle();
  Rect(out, spans[0].width, BarTop(row) + kChartBarHeightPx + 1,
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
  OpenSvg(out, static_cast<int>(shown.size()), "timeline of step " + std::to_string(step));
  int row = 0;
  for (const size_t index : shown) {
    const RankStepsReport& rank = steps.ranks[index];
    const RankStepReport* own = RankStep(rank, step);
    RowLabel(out, row, RankLabel(rank.rank, rank.file));
    SegmentRow(out, row, own->times, own->start_ns - earliest, latest - earliest);
    RowValue(out, row,
             "+" + FormatDurationNs(own->start_ns - earliest) + ", window " +
                 FormatDurationNs(own->times.window_ns));
    ++row;
  }
  out << "</svg>\n";
}

void WriteSegmentBarsSvg(const StepsReport& steps, const std::vector<size_t>& shown,
                         std::ostream& out) {
  if (shown.empty()) return;
  OpenSvg(out, static_cast<int>(shown.size()), "measured steps per rank");
  int row = 0;
  for (const size_t index : shown) {
    const RankStepsReport& rank = steps.ranks[index];
    RowLabel(out, row, RankLabel(rank.rank, rank.file));
    SegmentRow(out, row, rank.total, 0, rank.total.window_ns);
    RowValue(out, row,
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

void WritePhaseBarsSvg(const std::vector<ProcessPhasesReport>& phases,
                       const std::vector<size_t>& shown, std::ostream& out) {
  if (shown.empty()) return;
  const std::vector<std::string> names = PhaseNames(phases);
  OpenSvg(out, static_cast<int>(shown.size()), "NVTX phases per rank");
  int row = 0;
  for (const size_t index : shown) {
    const ProcessPhasesReport& process = phases[index];
    std::vector<double> values;
    std::vector<std::string_view> colours;
    std::vector<std::string> titles;
    int64_t phase_total = 0;
    for (const PhaseReport& phase : process.phases) {
      if (phase.unmatched) continue;
      const size_t index = std::find(names.begin(), names.end(), phase.name) - names.begin();
      values.push_back(static_cast<double>(phase.total_ns));
      colours.push_back(kPhaseColours[index % kPhaseColours.size()]);
      titles.push_back(phase.name + " " + FormatDurationNs(phase.total_ns));
      phase_total += phase.total_ns;
    }
    if (process.span_ns > phase_total) {
      values.push_back(static_cast<double>(process.span_ns - phase_total));
      colours.push_back(kOutsidePhasesColour);
      titles.push_back("outside phases " + FormatDurationNs(process.span_ns - phase_total));
    }
    const int64_t domain = std::max(process.span_ns, phase_total);
    const std::vector<PixelSpan> spans =
        StackSpans(values, static_cast<double>(domain), kChartBarPx);
    RowLabel(out, row, RankLabel(process.rank, process.file));
    for (size_t i = 0; i < spans.size(); ++i) {
      Rect(out, spans[i].x, BarTop(row), spans[i].width, kChartBarHeightPx, colours[i], titles[i]);
    }
    RowValue(out, row,
             phase_total > process.span_ns
                 ? "phases nest: their sum " + FormatDurationNs(phase_total)
                 : "span " + FormatDurationNs(process.span_ns));
    ++row;
  }
  out << "</svg>\n";
}

void WriteSkewSvg(const std::vector<CommunicatorReport>& communicators, std::ostream& out) {
  int rows = 0;
  int64_t domain = 0;
  for (const CommunicatorReport& comm : communicators) {
    for (const OpReport& op : comm.ops) {
      ++rows;
      domain = std::max(domain, op.max_arrival_skew_ns);
    }
  }
  if (rows == 0) return;
  OpenSvg(out, rows, "collective arrival skew");
  int row = 0;
  for (const CommunicatorReport& comm : communicators) {
    for (const OpReport& op : comm.ops) {
      RowLabel(out, row, FormatHexId(comm.comm_id) + " " + op.op + " " + op.bucket.Label());
      const std::string mean = "mean " + FormatDurationNs(op.mean_arrival_skew_ns);
      const std::string max = "max " + FormatDurationNs(op.max_arrival_skew_ns);
      Rect(out, 0, BarTop(row),
           PixelWidth(static_cast<double>(op.max_arrival_skew_ns), static_cast<double>(domain),
                      kChartBarPx),
           kChartBarHeightPx, kSkewMaxColour, max);
      Rect(out, 0, BarTop(row),
           PixelWidth(static_cast<double>(op.mean_arrival_skew_ns), static_cast<double>(domain),
                      kChartBarPx),
           kChartBarHeightPx, kSkewMeanColour, mean);
      RowValue(out, row, mean + " / " + max + ", " + std::to_string(op.count) + " calls");
      ++row;
    }
  }
  out << "</svg>\n";
}

}  // namespace vprof::reporter
