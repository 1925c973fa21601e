// The "Fast-path candidates" section of the text report.
#pragma once

#include <ostream>

#include "reporter/model/report.h"

namespace vprof::reporter {

void WriteCandidatesText(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
