// `vprof export --format chrome|perfetto|hta [-o OUT] [filters] DIR`: a run's traces as timelines
// people look at (Perfetto UI, chrome://tracing) or feed to Holistic Trace
// Analysis. Inputs, messages and exit statuses follow `vprof report`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

// `args` follow "export". The chrome document goes to `out` without -o.
int RunExportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string ExportUsage();

}  // namespace vprof::reporter
