// Sorting for a step's working lists, which come as a few already sorted
// runs: a stream runs its work one piece after another, so the edges (and
// launches, and pieces) of each stream's work are in order, and a step's
// works arrive a stream's batch at a time. Finding the runs and merging them
// pairwise costs about n log(runs) moves against std::sort's n log(n)
// compares; with many runs (records interleaved across streams) it is
// std::sort.
//
// `less` must be a total order (no two different items equal), so that the
// result is the one sorted order whichever way it was reached.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace vprof::reporter {

// Above this many runs a merge pass no longer pays: std::sort.
inline constexpr size_t kMaxMergedRuns = 16;

// Sorts `items`; `spare` and `bounds` are working space kept by the caller
// (their contents are overwritten).
template <typename T, typename Less>
void SortRuns(std::vector<T>& items, std::vector<T>& spare, std::vector<size_t>& bounds,
              Less less) {
  const size_t n = items.size();
  bounds.clear();
  bounds.push_back(0);
  for (size_t i = 1; i < n; ++i) {
    if (!less(items[i - 1], items[i])) {
      bounds.push_back(i);
      if (bounds.size() > kMaxMergedRuns) {
        std::sort(items.begin(), items.end(), less);
        return;
      }
    }
  }
  bounds.push_back(n);
  // Each pass merges runs 0 and 1, 2 and 3, ... from `items` into `spare`,
  // then the two swap roles.
  while (bounds.size() > 2) {
    spare.resize(n);
    size_t kept = 1;  // bounds[0] stays 0
    size_t run = 0;
    for (; run + 2 < bounds.size(); run += 2) {
      std::merge(items.begin() + bounds[run], items.begin() + bounds[run + 1],
                 items.begin() + bounds[run + 1], items.begin() + bounds[run + 2],
                 spare.begin() + bounds[run], less);
      bounds[kept++] = bounds[run + 2];
    }
    if (run + 2 == bounds.size()) {  // an odd run out: copied as it is
      std::copy(items.begin() + bounds[run], items.begin() + bounds[run + 1],
                spare.begin() + bounds[run]);
      bounds[kept++] = bounds[run + 1];
    }
    bounds.resize(kept);
    std::swap(items, spare);
  }
}

}  // namespace vprof::reporter
