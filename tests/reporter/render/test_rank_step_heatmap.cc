// The rank × step view's data: a row per rank, a column per measured step
// (numbered as the outputs number it), each cell the step's window and its
// lateness after the earliest rank's start; a missing step an empty cell; the
// cell cap keeping the first steps.
#include <catch2/catch.hpp>

#include "reporter/render/html/html_heatmap.h"

using namespace vprof::reporter;

namespace {

RankStepReport Step(uint32_t index, int64_t start_ns, int64_t window_ns) {
  RankStepReport step;
  step.step = index;
  step.start_ns = start_ns;
  step.end_ns = start_ns + window_ns;
  step.times.window_ns = window_ns;
  return step;
}

// Steps found 0-3, 0 the warm-up: rank 0 measured 1, 2, 3; rank 1 (no rank: a file) 1 and 3.
StepsReport TwoRanks() {
  StepsReport steps;
  steps.first_number = 1;
  RankStepsReport zero;
  zero.rank = 0;
  zero.steps = {Step(1, 1000, 50), Step(2, 2000, 60), Step(3, 3000, 70)};
  RankStepsReport other;
  other.file = "node1.7.vtrace";
  other.steps = {Step(1, 1010, 40), Step(3, 2990, 90)};
  steps.ranks = {zero, other};
  return steps;
}

}  // namespace

TEST_CASE("rank x step view: windows, lateness after the earliest rank, empty cells") {
  const RankStepHeatmap map = BuildRankStepHeatmap(TwoRanks());
  CHECK(map.ranks == std::vector<std::string>{"rank 0", "node1.7.vtrace"});
  CHECK(map.steps == std::vector<uint32_t>{2, 3, 4});  // index + first_number
  using Row = std::vector<std::optional<int64_t>>;
  CHECK(map.window_ns == std::vector<Row>{{50, 60, 70}, {40, std::nullopt, 90}});
  // Step 1: rank 0 began first, the other 10 ns later; step 3: the other began 10 ns earlier.
  CHECK(map.lateness_ns == std::vector<Row>{{0, 0, 10}, {10, std::nullopt, 0}});
  CHECK(map.steps_left_out == 0);
}

TEST_CASE("rank x step view: past the cell cap, the first steps") {
  const RankStepHeatmap map = BuildRankStepHeatmap(TwoRanks(), 4);  // 2 ranks: 2 steps
  CHECK(map.steps == std::vector<uint32_t>{2, 3});
  CHECK(map.steps_left_out == 1);
  CHECK(map.window_ns[1] == std::vector<std::optional<int64_t>>{40, std::nullopt});
  CHECK(BuildRankStepHeatmap(StepsReport{}).steps.empty());
}
