#include "reporter/render/page_sections.h"

#include <utility>

namespace vprof::reporter {
namespace {

void AddSteps(const Report& report, std::vector<PageSection>& sections) {
  if (!report.steps) {
    sections.push_back({ReportTable{.id = "steps",
                                    .title = "Steps",
                                    .scope = "",
                                    .note = "",
                                    .columns = {},
                                    .rows = {},
                                    .empty_text = MeasurementWindow(report)},
                        SectionChart::kNone, true});
    return;
  }
  if (std::optional<ReportTable> timeline = TimelineTable(*report.steps)) {
    sections.push_back({std::move(timeline), SectionChart::kStepTimeline});
  }
  if (!report.steps->ranks.empty()) {
    sections.push_back({std::nullopt, SectionChart::kRankStepHeatmap, true});
  }
  sections.push_back({StepSegmentsTable(report), SectionChart::kStepSegments});
  if (std::optional<ReportTable> ledger = LedgerTable(*report.steps)) {
    sections.push_back({std::move(ledger)});
  }
  if (std::optional<ReportTable> late = LateRanksTable(*report.steps)) {
    sections.push_back({std::move(late)});
  }
  if (std::optional<ReportTable> full = FullStepsTable(*report.steps)) {
    sections.push_back({std::move(full)});
  }
}

}  // namespace

std::vector<PageSection> PageSections(const Report& report) {
  std::vector<PageSection> sections;
  sections.push_back({ProcessesTable(report)});
  AddSteps(report, sections);
  if (report.step_timeline) sections.push_back({std::nullopt, SectionChart::kNone, true});
  sections.push_back({PhasesTable(report), SectionChart::kPhases});
  sections.push_back({CollectivesTable(report), SectionChart::kCollectives});
  if (std::optional<ReportTable> roles = CommRolesTable(report)) {
    sections.push_back({std::move(roles)});
  }
  sections.push_back({CandidatesTable(report)});
  sections.push_back({GpuKernelsTable(report)});
  if (std::optional<ReportTable> coverage = CoverageTable(report)) {
    sections.push_back({std::move(coverage)});
  }
  if (std::optional<ReportTable> consistency = ConsistencyTable(report)) {
    sections.push_back({std::move(consistency)});
  }
  return sections;
}

}  // namespace vprof::reporter
