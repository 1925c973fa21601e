// The two halves of a report made node by node (node_summary.h,
// summary_merge.h), as `vprof report` options:
//   vprof report --node-summary OUT [--host NAME] [--clock monotonic|realtime] DIR
//   vprof report --merge-summaries [--format text|json] [--output FILE] [--strict]
//                [--contract FILE] SUMMARY...
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace vprof::reporter {

inline constexpr std::string_view kNodeSummaryOption = "--node-summary";
inline constexpr std::string_view kMergeSummariesOption = "--merge-summaries";

// `args` are report's arguments, --node-summary among them.
int RunNodeSummaryCommand(const std::vector<std::string>& args, std::ostream& err);

// `args` are report's arguments, --merge-summaries among them.
int RunMergeSummariesCommand(const std::vector<std::string>& args, std::ostream& out,
                             std::ostream& err);

}  // namespace vprof::reporter
