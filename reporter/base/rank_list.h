// Ranks written for people: ascending ranks with runs of consecutive ones
// collapsed, "0-3, 5, 9", the first 16 runs only, then " and 12 more".
#pragma once

#include <concepts>
#include <cstddef>
#include <string>
#include <vector>

namespace vprof::reporter {

template <std::integral Rank>
std::string RankList(const std::vector<Rank>& ascending) {
  constexpr size_t kMaxRuns = 16;
  std::string text;
  size_t runs = 0;
  size_t i = 0;
  for (; i < ascending.size() && runs < kMaxRuns; ++runs) {
    size_t last = i;
    while (last + 1 < ascending.size() && ascending[last + 1] == ascending[last] + 1) ++last;
    if (!text.empty()) text += ", ";
    text += std::to_string(ascending[i]);
    if (last > i) text += "-" + std::to_string(ascending[last]);
    i = last + 1;
  }
  if (i < ascending.size()) text += " and " + std::to_string(ascending.size() - i) + " more";
  return text;
}

}  // namespace vprof::reporter
