#include "reporter/collectives/size_bucket.h"

#include <bit>
#include <limits>

#include "reporter/base/units.h"

namespace vprof::reporter {

uint64_t SizeBucket::min_bytes() const { return log2 < 0 ? 0 : uint64_t{1} << log2; }

uint64_t SizeBucket::max_bytes() const {
  if (log2 >= 63) return std::numeric_limits<uint64_t>::max();
  return uint64_t{1} << (log2 + 1);
}

std::string SizeBucket::Label() const {
  const std::string low = log2 < 0 ? "0B" : FormatPowerOfTwoBytes(log2);
  return "[" + low + "," + FormatPowerOfTwoBytes(log2 + 1) + ")";
}

SizeBucket BucketOf(uint64_t bytes) {
  return SizeBucket{static_cast<int>(std::bit_width(bytes)) - 1};
}

}  // namespace vprof::reporter
