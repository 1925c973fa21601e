// The "Steps" section of the text report.
#pragma once

#include <ostream>

#include "reporter/report.h"

namespace vprof::reporter {

void WriteStepsText(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
