// What a report's times are on, in the one sentence every output prints.
#pragma once

#include <string>

#include "reporter/report.h"

namespace vprof::reporter {

// "CLOCK_MONOTONIC of host H", or "CLOCK_REALTIME: N hosts; ... error bound ±T ...".
std::string ClockDescription(const TimeSource& time);

}  // namespace vprof::reporter
