// Builds a run's report from the node summaries of its hosts
// (node_summary.h), matching collectives that span nodes by (communicator,
// seq) as `vprof report DIR` would, so the result is the same report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reporter/consistency/provenance.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

struct MergeResult {
  std::optional<Report> report;  // none when the summaries could not be merged
  std::string error;             // why there is no report
  // The summaries do not belong together (other directories, other clocks,
  // a trace summarized twice), rather than being unreadable.
  bool usage_error = false;
  // The report was made but may differ from `vprof report DIR`: traces of
  // DIR that no summary holds, or a clock that one host would not need.
  std::vector<std::string> warnings;
  bool traces_missing = false;  // some trace of DIR is in no summary
};

// `summary_paths`: one file per node (any order); `consistency`: what the
// run is held to, as `vprof report DIR --strict --contract FILE` would hold it.
MergeResult MergeSummaries(const std::vector<std::string>& summary_paths,
                           const ConsistencyOptions& consistency = {});

}  // namespace vprof::reporter
