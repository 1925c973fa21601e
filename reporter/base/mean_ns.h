// The mean of a time total, as the report gives means: rounded to the
// nearest nanosecond, 0 for no samples.
#pragma once

#include <cmath>
#include <cstdint>

namespace vprof::reporter {

inline int64_t MeanNs(int64_t total_ns, uint64_t count) {
  if (count == 0) return 0;
  return std::llround(static_cast<double>(total_ns) / static_cast<double>(count));
}

}  // namespace vprof::reporter
