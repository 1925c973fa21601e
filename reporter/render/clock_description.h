// What a report's times are on, in the one sentence every output prints, and
// how well the collectives say the processes' clocks agree.
#pragma once

#include <optional>
#include <string>

#include "reporter/model/report.h"

namespace vprof::reporter {

// "CLOCK_MONOTONIC of host H", or "CLOCK_REALTIME: N hosts; ... error bound ±T ...".
std::string ClockDescription(const TimeSource& time);

// "clock of F (rank R) 55.1 years behind the other processes' (its start
// -1.74e18 ns from the median): its lateness and skews are not comparable".
std::string FarClockDescription(const FarClock& far);

// The collective check in one sentence: the process furthest off the
// reference's clock by its collectives' kernel ends, the largest drift, and
// whether every process is within its bound. None when no process shared a
// collective with the reference.
std::optional<std::string> ClockCheckDescription(const TimeSource& time);

}  // namespace vprof::reporter
