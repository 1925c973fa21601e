// Power-of-two message-size buckets: [2^k, 2^(k+1)), plus [0, 1) for empty
// messages.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace vprof::reporter {

struct SizeBucket {
  int log2 = -1;  // k; -1 is the bucket of zero-byte messages

  uint64_t min_bytes() const;  // inclusive
  // Exclusive; 2^64 does not fit, so the top bucket (k = 63) reports 2^64 − 1.
  uint64_t max_bytes() const;
  std::string Label() const;  // "[1MiB,2MiB)", "[0B,1B)"

  auto operator<=>(const SizeBucket&) const = default;
};

SizeBucket BucketOf(uint64_t bytes);

// Whether k is a bucket BucketOf can give (-1..63): a k read from a file is
// checked with this before it is used.
constexpr bool ValidBucketLog2(int64_t log2) { return log2 >= -1 && log2 <= 63; }

}  // namespace vprof::reporter
