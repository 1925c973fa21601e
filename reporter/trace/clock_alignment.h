// Puts processes on different hosts onto one timeline. Each host's
// CLOCK_MONOTONIC has its own origin, so a process's times are shifted to
// CLOCK_REALTIME by the median (realtime − monotonic) of its clock samples.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vprof_trace.pb.h"

namespace vprof::reporter {

// The (realtime − trace clock) of the clock pair a packet carries: a
// ClockSample, or the RunHeader's start pair. None for other packets and for
// pairs without a realtime reading.
std::optional<int64_t> ClockOffsetIn(const vprof::trace::TracePacket& packet);

// The median; the mean of the middle two for an even count. `offsets` must
// not be empty.
int64_t MedianOffset(std::vector<int64_t> offsets);

// The median offset of one file's clock pairs, from a separate pass (a
// median needs every sample before the first collective is timed). The pass
// parses only the RunHeader and ClockSample packets and skips the others
// unparsed by their length, so it costs a fraction of the main pass. None
// when the file has no pairs. It stops at the first bytes that are not
// well-formed packets; what it cannot read, the main pass reports.
std::optional<int64_t> ScanMedianClockOffset(const std::string& path);

}  // namespace vprof::reporter
