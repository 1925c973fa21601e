// Reads a run's trace files and builds the report from them.
#pragma once

#include <string>
#include <vector>

#include "reporter/report.h"

namespace vprof::reporter {

// `paths` as ListTraceFiles(directory) found them. Problems with individual
// files end up in the report's processes (state, problem), never abort it.
Report BuildReport(const std::string& directory, const std::vector<std::string>& paths);

}  // namespace vprof::reporter
