// Writes the HTML report of the sample Report for the screenshot test, and
// what check_screenshot.py should find in its screenshot: each chart bar to
// look for as its colours in order, with the fraction of the bar each colour
// should fill, worked out here from the Report's figures (not from the
// renderer's geometry).
//
// Usage: render_screenshot_page PAGE.html EXPECTED.json
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "reporter/render/chart_palette.h"
#include "reporter/render/html/html_page.h"
#include "reporter/render/html/svg_charts.h"
#include "sample_report.h"

using namespace vprof::reporter;

namespace {

struct Bar {
  std::string what;
  std::vector<std::string_view> colours;
  std::vector<double> fractions;
};

std::string_view SegmentColour(int64_t SegmentTimes::*ns) {
  for (const SegmentStyle& style : kSegmentStyles) {
    if (style.ns == ns) return style.colour;
  }
  return {};
}

std::vector<Bar> ExpectedBars(const Report& report) {
  std::vector<Bar> bars;
  // NVTX phases: rank 0 forward and backward of its span; rank 1 forward,
  // backward and the rest of its span.
  const ProcessPhasesReport& rank0 = report.phases[0];
  const double span0 = static_cast<double>(rank0.span_ns);
  bars.push_back({"rank 0 phase bar (forward, backward)",
                  {kPhaseColours[0], kPhaseColours[1]},
                  {rank0.phases[0].total_ns / span0, rank0.phases[1].total_ns / span0}});
  const ProcessPhasesReport& rank1 = report.phases[1];
  const double span1 = static_cast<double>(rank1.span_ns);
  const int64_t outside = rank1.span_ns - rank1.phases[0].total_ns - rank1.phases[1].total_ns;
  bars.push_back(
      {"rank 1 phase bar (forward, backward, outside phases)",
       {kPhaseColours[0], kPhaseColours[1], kOutsidePhasesColour},
       {rank1.phases[0].total_ns / span1, rank1.phases[1].total_ns / span1, outside / span1}});
  // Rank 1's measured steps: compute, exposed comm, copy, idle of its window.
  const SegmentTimes& total = report.steps->ranks[1].total;
  const double window = static_cast<double>(total.window_ns);
  bars.push_back(
      {"rank 1 measured-steps bar (compute, exposed comm, copy, idle)",
       {SegmentColour(&SegmentTimes::compute_ns), SegmentColour(&SegmentTimes::exposed_comm_ns),
        SegmentColour(&SegmentTimes::copy_ns), SegmentColour(&SegmentTimes::idle_ns)},
       {total.compute_ns / window, total.exposed_comm_ns / window, total.copy_ns / window,
        total.idle_ns / window}});
  // The all-reduce's skew: the mean over the max, which fills the bar.
  const OpReport& all_reduce = report.communicators[0].ops[0];
  const double mean_share = static_cast<double>(all_reduce.mean_arrival_skew_ns) /
                            static_cast<double>(all_reduce.max_arrival_skew_ns);
  bars.push_back({"all-reduce skew bar (mean, rest of max)",
                  {kSkewMeanColour, kSkewMaxColour},
                  {mean_share, 1 - mean_share}});
  return bars;
}

void WriteExpected(const std::vector<Bar>& bars, std::ostream& out) {
  out << "{\"bar_px\": " << kChartBarPx << ", \"bars\": [";
  for (size_t i = 0; i < bars.size(); ++i) {
    out << (i ? ", " : "") << "{\"what\": \"" << bars[i].what << "\", \"colours\": [";
    for (size_t j = 0; j < bars[i].colours.size(); ++j) {
      out << (j ? ", " : "") << '"' << bars[i].colours[j] << '"';
    }
    out << "], \"fractions\": [";
    for (size_t j = 0; j < bars[i].fractions.size(); ++j) {
      out << (j ? ", " : "") << bars[i].fractions[j];
    }
    out << "]}";
  }
  out << "], \"tag_colours\": [";
  for (size_t i = 0; i < kStrictTagStyles.size(); ++i) {
    out << (i ? ", " : "") << '"' << kStrictTagStyles[i].colour << '"';
  }
  out << "]}\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: render_screenshot_page PAGE.html EXPECTED.json\n";
    return 2;
  }
  const Report report = vprof::reporter::testing::SampleReport();
  std::ofstream page(argv[1]);
  WriteHtmlReport(report, page);
  std::ofstream expected(argv[2]);
  WriteExpected(ExpectedBars(report), expected);
  page.close();
  expected.close();
  if (!page || !expected) {
    std::cerr << "render_screenshot_page: cannot write " << argv[1] << " or " << argv[2] << '\n';
    return 1;
  }
  return 0;
}
