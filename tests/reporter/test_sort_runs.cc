// SortRuns against std::sort: lists made of k sorted runs (k = 1 to past
// kMaxMergedRuns, where it falls back to std::sort) of random lengths, with
// duplicates, come out as std::sort sorts them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "reporter/steps/sort_runs.h"

using namespace vprof::reporter;

namespace {

// k runs, each ascending, laid one after the other.
std::vector<int64_t> RunsOf(size_t runs, std::mt19937_64& random) {
  std::vector<int64_t> items;
  for (size_t run = 0; run < runs; ++run) {
    std::vector<int64_t> piece(random() % 40);
    for (int64_t& value : piece) value = static_cast<int64_t>(random() % 200);
    std::sort(piece.begin(), piece.end());
    items.insert(items.end(), piece.begin(), piece.end());
  }
  return items;
}

}  // namespace

TEST_CASE("SortRuns sorts lists of sorted runs as std::sort does") {
  std::mt19937_64 random(20261201);
  std::vector<int64_t> spare;
  std::vector<size_t> bounds;
  const auto less = [](int64_t a, int64_t b) { return a < b; };
  for (size_t runs = 0; runs <= 2 * kMaxMergedRuns; ++runs) {
    for (int round = 0; round < 20; ++round) {
      std::vector<int64_t> items = RunsOf(runs, random);
      std::vector<int64_t> expected = items;
      std::sort(expected.begin(), expected.end());
      SortRuns(items, spare, bounds, less);
      REQUIRE(items == expected);
    }
  }
}

TEST_CASE("SortRuns keeps a sorted list as it is and reverses a descending one") {
  std::vector<int64_t> spare;
  std::vector<size_t> bounds;
  const auto less = [](int64_t a, int64_t b) { return a < b; };
  std::vector<int64_t> sorted = {1, 2, 3, 5, 8};
  SortRuns(sorted, spare, bounds, less);
  CHECK(sorted == std::vector<int64_t>{1, 2, 3, 5, 8});
  // Five runs of one item each, merged in three passes.
  std::vector<int64_t> descending = {9, 7, 5, 3, 1};
  SortRuns(descending, spare, bounds, less);
  CHECK(descending == std::vector<int64_t>{1, 3, 5, 7, 9});
}
