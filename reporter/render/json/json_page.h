// The report as JSON; every key is documented in reporter/README.md.
#pragma once

#include <ostream>

#include "reporter/model/report.h"

namespace vprof::reporter {

// Bumped when a key changes meaning or goes away; new keys do not bump it.
// 2: a communicator's lists of comm ranks became runs ("0-3", "5").
inline constexpr int kJsonReportVersion = 3;

void WriteJsonReport(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
