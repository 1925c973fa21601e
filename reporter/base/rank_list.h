// Ranks as runs of consecutive ones, "0-3, 5, 9": what a list of ranks that a
// communicator's size can make a million long is written as, so that what is
// written grows with the ranks that were seen, not with the size declared.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vprof::reporter {

struct RankRange {
  int64_t first = 0;
  int64_t last = 0;  // inclusive
  bool operator==(const RankRange&) const = default;
};

// "5", or "3-1048575".
inline std::string RangeText(const RankRange& range) {
  return range.first == range.last ? std::to_string(range.first)
                                   : std::to_string(range.first) + "-" + std::to_string(range.last);
}

// Ascending, distinct ranks as their runs.
template <std::integral Rank>
std::vector<RankRange> RankRanges(const std::vector<Rank>& ascending) {
  std::vector<RankRange> ranges;
  for (const Rank rank : ascending) {
    if (!ranges.empty() && ranges.back().last + 1 == static_cast<int64_t>(rank)) {
      ranges.back().last = rank;
    } else {
      ranges.push_back({rank, rank});
    }
  }
  return ranges;
}

// The ranks of 0..size-1 that ascending, distinct `present` does not hold: at
// most one run more than `present` has ranks, however large `size` is.
template <std::integral Rank>
std::vector<RankRange> AbsentRanks(const std::vector<Rank>& present, int64_t size) {
  std::vector<RankRange> ranges;
  int64_t next = 0;  // the lowest rank not yet accounted for
  for (const Rank rank : present) {
    if (static_cast<int64_t>(rank) >= size) break;
    if (static_cast<int64_t>(rank) > next) ranges.push_back({next, static_cast<int64_t>(rank) - 1});
    next = static_cast<int64_t>(rank) + 1;
  }
  if (next < size) ranges.push_back({next, size - 1});
  return ranges;
}

// How many ranks the runs hold.
inline uint64_t RankCount(const std::vector<RankRange>& ranges) {
  uint64_t count = 0;
  for (const RankRange& range : ranges)
    count += static_cast<uint64_t>(range.last - range.first + 1);
  return count;
}

// Ranks written for people: the first 16 runs only, then " and 12 more" (ranks).
inline std::string RankList(const std::vector<RankRange>& ranges) {
  constexpr size_t kMaxRuns = 16;
  std::string text;
  uint64_t left = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i < kMaxRuns) {
      text += (i == 0 ? "" : ", ") + RangeText(ranges[i]);
    } else {
      left += static_cast<uint64_t>(ranges[i].last - ranges[i].first + 1);
    }
  }
  if (left > 0) text += " and " + std::to_string(left) + " more";
  return text;
}

template <std::integral Rank>
std::string RankList(const std::vector<Rank>& ascending) {
  return RankList(RankRanges(ascending));
}

}  // namespace vprof::reporter
