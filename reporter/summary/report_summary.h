// The Summary every report leads with: at most a dozen lines a person reads in
// a minute (the step time and its spread, where the step goes, the top three
// candidates, the straggler, the capture's health, vprof's own cost), each
// naming the section that backs it. Chosen from a finished Report; the text,
// Markdown, HTML and JSON reports render the same lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reporter/model/report.h"

namespace vprof::reporter {

// One line: a label, its sentence, and the section behind it (the HTML
// anchor of report_tables.h and the heading the text report prints).
struct SummaryLine {
  std::string label;  // "Step", "Where the step goes", "Candidate 1", ...
  std::string text;
  std::string section_id;     // "full-steps", "segments", "candidates", ...
  std::string section_title;  // "Steps", "Fast-path candidates", ...
};

// Where the critical rank's measured steps go, per step.
struct StepShares {
  std::optional<int32_t> rank;
  std::string file;
  size_t slowest_in = 0;  // full steps in which it was the slowest
  int64_t window_ns = 0;  // per step
  int64_t compute_ns = 0;
  int64_t exposed_comm_ns = 0;
  int64_t copy_ns = 0;
  int64_t idle_host_bound_ns = 0;
  int64_t idle_waiting_ns = 0;
  int64_t overlapped_comm_ns = 0;  // under compute, not part of the window's sum
};

struct ReportSummary {
  std::vector<SummaryLine> lines;
  // The figures behind the lines, for the JSON report.
  std::optional<StepShares> shares;
  // NCCL events, CUPTI records and NVTX ranges, over all processes.
  uint64_t dropped_records = 0;
  size_t coverage_gaps = 0;
  size_t traces_not_whole = 0;
};

ReportSummary SummarizeReport(const Report& report);

}  // namespace vprof::reporter
