// The report's sections as tables of display text, built once and written by
// the Markdown and the HTML writer (which only escape and lay out), and by
// the text writer where its table is the same, so the formats say the same
// thing in the same words. Every other text table is a ReportTable too
// (table_text.h), so one model holds every table vprof writes.
//
// Every table names its scope: "operator" (one kernel or collective),
// "actor window" (one rank over the measured steps, or over its NVTX span),
// "full step" (the step across ranks, where the slowest rank sets the time).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reporter/model/report.h"

namespace vprof::reporter {

struct TableColumn {
  TableColumn(std::string header, bool numeric = false, bool in_text = true)
      : header(std::move(header)), numeric(numeric), in_text(in_text) {}

  std::string header;
  bool numeric;  // right-aligned
  // False: the text report, 100 columns wide, says it in lines of its own
  // after the table (TextTableOf leaves the column out).
  bool in_text;
};

struct TableCell {
  TableCell(std::string text, std::string_view colour = {})
      : text(std::move(text)), colour(colour) {}
  TableCell(const char* text) : text(text) {}  // a literal: "-", "…"

  std::string text;
  std::string_view colour;  // a background from chart_palette.h; empty for none
};

struct ReportTable {
  std::string id;  // an HTML anchor: "processes", "candidates", ...
  std::string title;
  std::string scope;  // "operator", "actor window", "full step", or "" where none applies
  std::string note;   // what the figures are, in one paragraph
  std::vector<TableColumn> columns;
  std::vector<std::vector<TableCell>> rows;  // one cell per column
  std::string empty_text;                    // said instead of a table without rows
};

// "Directory", "Measurement window", "Times", "Clock", "Scopes": label and text.
std::vector<std::pair<std::string, std::string>> HeaderFacts(const Report& report);

// What the step figures cover: StepsReport.window, or why there are no steps.
std::string MeasurementWindow(const Report& report);

// "operator", "actor window", "full step".
std::string_view ScopeWords(CandidateScope scope);

ReportTable ProcessesTable(const Report& report);
// The step TimelineStep picks, per rank; none without steps.
std::optional<ReportTable> TimelineTable(const StepsReport& steps);
std::optional<ReportTable> StepSegmentsTable(const Report& report);
std::optional<ReportTable> FullStepsTable(const StepsReport& steps);
// The step ledger's lines, and the ranks the others waited for; none
// without a ledger.
std::optional<ReportTable> LedgerTable(const StepsReport& steps);
std::optional<ReportTable> LateRanksTable(const StepsReport& steps);
ReportTable PhasesTable(const Report& report);
ReportTable CollectivesTable(const Report& report);
// Each communicator's roles in the measured steps, with their evidence; none without.
std::optional<ReportTable> CommRolesTable(const Report& report);
ReportTable CandidatesTable(const Report& report);
ReportTable GpuKernelsTable(const Report& report);
// Both none when coverage and consistency were not checked.
std::optional<ReportTable> CoverageTable(const Report& report);
std::optional<ReportTable> ConsistencyTable(const Report& report);

}  // namespace vprof::reporter
