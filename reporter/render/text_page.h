// The report as text for people, at most 100 columns wide.
#pragma once

#include <ostream>

#include "reporter/model/report.h"

namespace vprof::reporter {

void WriteTextReport(const Report& report, std::ostream& out);
// Its Summary alone: each line with the section that backs it.
void WriteTextSummary(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
