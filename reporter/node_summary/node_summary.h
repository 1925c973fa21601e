// Writes the node summary of one host's traces (node_summary.proto): each
// node of a large job summarizes its own traces, in parallel, and
// summary_merge.h builds the whole run's report from the summaries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "reporter/report/analysis_options.h"
#include "reporter/report/build.h"

namespace vprof::reporter {

// The traces among `paths` (as ListTraceFiles gave them) that `host` wrote:
// named <host>.<pid>.vtrace or <host>.<pid>.<n>.vtrace.
std::vector<std::string> TracesOfHost(const std::vector<std::string>& paths, std::string_view host);

struct NodeSummaryResult {
  std::string error;                  // empty when the summary was written
  bool all_whole = true;              // every trace was whole
  std::vector<std::string> problems;  // "FILE: what is wrong", one per trace not whole
};

// Reads `paths` (traces in `directory`, all of `host`) on the given clock,
// finding steps and phases as `analysis` says, and writes their summary,
// which records `analysis`, to `out_path`. `jobs`: the threads that read the
// traces (the summary is the same for any number).
NodeSummaryResult WriteNodeSummary(const std::string& directory, const std::string& host,
                                   const std::vector<std::string>& paths, ClockChoice clock,
                                   const AnalysisOptions& analysis, const std::string& out_path,
                                   unsigned jobs = 1);

}  // namespace vprof::reporter
