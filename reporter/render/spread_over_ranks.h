// A figure over many ranks in three values: the least, the median and the
// most, with the rank that had the least and the most. What the text report
// shows where a row per rank would run to thousands of lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vprof::reporter {

struct SpreadOverRanks {
  int64_t least = 0;
  int64_t median = 0;  // the upper median
  int64_t most = 0;
  std::optional<int32_t> least_rank;  // the first (in the order given) with the least
  std::optional<int32_t> most_rank;   // the first with the most
};

// Over (value, rank) pairs, in rank order; none when there are none.
using RankValues = std::vector<std::pair<int64_t, std::optional<int32_t>>>;
std::optional<SpreadOverRanks> SpreadOver(RankValues values);

// "4.51 s (rank 12)"; without a rank, the duration alone.
std::string DurationOfRankText(int64_t ns, const std::optional<int32_t>& rank);

}  // namespace vprof::reporter
