// The sections of the Markdown and HTML reports, in the one order both write
// them: each a table from report_tables.h, and what the HTML page draws with
// it. The writers lay the list out; neither decides what goes where.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "reporter/model/report.h"
#include "reporter/render/report_tables.h"

namespace vprof::reporter {

// What the HTML page draws between a section's note and its table, when the
// table has rows (the chart draws the same figures). Markdown draws nothing.
enum class SectionChart : uint8_t {
  kNone,
  kStepTimeline,     // the timeline step's strip per rank
  kStepSegments,     // each rank's measured steps split into segments
  kPhases,           // each rank's phase bars
  kCollectives,      // each op's mean and max arrival skew
  kRankStepHeatmap,  // a section of its own, with no table: every rank's every step
};

struct PageSection {
  // None for the interactive timeline of one step (html_timeline.h) and the
  // rank × step view (html_heatmap.h, chart kRankStepHeatmap), which are all
  // chart: the HTML page writes them where the list has them.
  std::optional<ReportTable> table;
  SectionChart chart = SectionChart::kNone;
  // A section only the HTML page writes: the Steps section of a report
  // without steps says why, because the Summary links to its anchor there.
  bool html_only = false;
};

std::vector<PageSection> PageSections(const Report& report);

}  // namespace vprof::reporter
