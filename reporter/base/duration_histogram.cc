#include "reporter/base/duration_histogram.h"

#include <cmath>

namespace vprof::reporter {
namespace {

const double kLogBinWidth = std::log(1.01);

}  // namespace

void DurationHistogram::Add(int64_t duration_ns) {
  const int32_t bin =
      duration_ns <= 0 ? kZeroBin
                       : static_cast<int32_t>(
                             std::floor(std::log(static_cast<double>(duration_ns)) / kLogBinWidth));
  ++bins_[bin];
  ++count_;
}

std::optional<int64_t> DurationHistogram::Median() const {
  if (count_ == 0) return std::nullopt;
  const uint64_t rank = (count_ + 1) / 2;  // 1-based rank of the lower median
  uint64_t seen = 0;
  for (const auto& [bin, count] : bins_) {
    seen += count;
    if (seen < rank) continue;
    if (bin == kZeroBin) return 0;
    return std::llround(std::exp((bin + 0.5) * kLogBinWidth));
  }
  return std::nullopt;  // unreachable: the counts add up to count_
}

}  // namespace vprof::reporter
