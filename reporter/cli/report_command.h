// `vprof report`: its options, the report built from a run's traces and written in the format
// asked for, the progress line while it reads, and the strict verdict's exit status; with
// --node-summary or --merge-summaries, the node-by-node commands (reporter/node_summary/).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

std::string ReportUsage();
// `args` are those after "report"; returns the exit status.
int RunReportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
