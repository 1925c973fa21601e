// Durations as counts in bins 1% wide, so the median is known within 0.5%
// however many durations were added, in memory that grows with how widely
// they spread (a few hundred bins cover 1 µs to 10 s), not with their number.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace vprof::reporter {

class DurationHistogram {
 public:
  void Add(int64_t duration_ns);

  uint64_t count() const { return count_; }
  // The lower median (the ⌈count/2⌉-th smallest duration) as the geometric
  // centre of its bin: within 0.5% of the true value. None when empty.
  std::optional<int64_t> Median() const;

 private:
  // Bin i >= 0 holds [1.01^i, 1.01^(i+1)) ns; kZeroBin holds durations <= 0.
  static constexpr int32_t kZeroBin = -1;
  std::map<int32_t, uint64_t> bins_;
  uint64_t count_ = 0;
};

}  // namespace vprof::reporter
