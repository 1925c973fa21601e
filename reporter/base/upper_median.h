// The median as a picked sample: the element at size / 2 once sorted, the upper of the two
// middle ones for an even count, so the result is a value some input had (a rank's figure, a
// process's start), never an average of two.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace vprof::reporter {

// `values` must not be empty.
inline int64_t UpperMedian(std::vector<int64_t> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace vprof::reporter
