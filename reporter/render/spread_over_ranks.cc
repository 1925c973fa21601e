#include "reporter/render/spread_over_ranks.h"

#include <algorithm>

#include "reporter/base/units.h"

namespace vprof::reporter {

std::optional<SpreadOverRanks> SpreadOver(RankValues values) {
  if (values.empty()) return std::nullopt;
  // Stable: among equal values the first given stands for them.
  std::stable_sort(values.begin(), values.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto most = std::find_if(values.begin(), values.end(), [&](const auto& entry) {
    return entry.first == values.back().first;
  });
  return SpreadOverRanks{values.front().first, values[values.size() / 2].first, most->first,
                         values.front().second, most->second};
}

std::string DurationOfRankText(int64_t ns, const std::optional<int32_t>& rank) {
  return FormatDurationNs(ns) + (rank ? " (rank " + std::to_string(*rank) + ")" : "");
}

}  // namespace vprof::reporter
