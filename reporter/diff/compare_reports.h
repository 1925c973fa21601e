// Pairs what two JSON reports hold, section by section (report_sections.h).
#pragma once

#include "reporter/base/json_node.h"
#include "reporter/diff/run_diff.h"

namespace vprof::reporter {

// `a` and `b` are JSON reports (vprof report --format json) already checked
// to be objects of a report_version this vprof reads.
std::vector<DiffSection> CompareReports(const JsonNode& a, const JsonNode& b);

}  // namespace vprof::reporter
