// Sums and differences of nanosecond times that stop at the ends of int64
// instead of overflowing: a host whose clock reads 1970 puts its times some
// 1.7e18 ns from the others', and a few collectives' sum of such lateness
// passes INT64_MAX (undefined behaviour, then an absurd mean). A clock that
// far off is also reported (far_clocks in report.h).
#pragma once

#include <cstdint>
#include <limits>

namespace vprof::reporter {

inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// An unsigned duration from the wire as int64, INT64_MAX where it is larger.
inline int64_t ClampedNs(uint64_t ns) {
  return ns > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(ns);
}

inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t difference = 0;
  if (!__builtin_sub_overflow(a, b, &difference)) return difference;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace vprof::reporter
