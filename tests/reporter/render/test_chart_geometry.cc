// Chart geometry: values to whole pixels, and the step the timeline draws.
#include <catch2/catch.hpp>

#include "reporter/render/chart_geometry.h"
#include "reporter/render/timeline_step.h"

using namespace vprof::reporter;

namespace {

std::vector<std::pair<int, int>> Pairs(const std::vector<PixelSpan>& spans) {
  std::vector<std::pair<int, int>> pairs;
  for (const PixelSpan& span : spans) pairs.push_back({span.x, span.width});
  return pairs;
}

FullStepReport FullStep(uint32_t step, int64_t duration) {
  FullStepReport full;
  full.step = step;
  full.duration_ns = duration;
  return full;
}

}  // namespace

TEST_CASE("PixelWidth scales linearly, rounds, and clamps to the range") {
  CHECK(PixelWidth(6, 10, 600) == 360);   // 6/10 × 600
  CHECK(PixelWidth(0.5, 10, 600) == 30);  // 0.5/10 × 600
  CHECK(PixelWidth(1, 3, 100) == 33);     // 33.3
  CHECK(PixelWidth(2, 3, 100) == 67);     // 66.7
  CHECK(PixelWidth(12, 10, 600) == 600);  // past the domain: the whole bar
  CHECK(PixelWidth(-1, 10, 600) == 0);
  CHECK(PixelWidth(5, 0, 600) == 0);  // an empty domain draws nothing
}

TEST_CASE("StackSpans rounds edges from the running sum, so widths add up") {
  // 60% / 40% of 600 px.
  CHECK(Pairs(StackSpans({6, 4}, 10, 600)) ==
        std::vector<std::pair<int, int>>{{0, 360}, {360, 240}});
  // Thirds of 100: edges at 33.3 → 33 and 66.7 → 67, so 33 + 34 + 33 = 100.
  CHECK(Pairs(StackSpans({1, 1, 1}, 3, 100)) ==
        std::vector<std::pair<int, int>>{{0, 33}, {33, 34}, {67, 33}});
  // Rank 1 of the sample timeline: offset 0.5, then 4.75, 2.85, 0.95, 0.95 of
  // 10 ms: edges 30, 315, 486, 543, 600.
  CHECK(Pairs(StackSpans({0.5, 4.75, 2.85, 0.95, 0.95}, 10, 600)) ==
        std::vector<std::pair<int, int>>{{0, 30}, {30, 285}, {315, 171}, {486, 57}, {543, 57}});
  // More than the domain: cut at the bar's end.
  CHECK(Pairs(StackSpans({8, 4}, 10, 600)) ==
        std::vector<std::pair<int, int>>{{0, 480}, {480, 120}});
}

TEST_CASE("TimelineStep picks the full step nearest the median") {
  StepsReport steps;
  CHECK_FALSE(TimelineStep(steps));

  RankStepsReport rank;
  rank.steps = {RankStepReport{}, RankStepReport{}};
  rank.steps[0].step = 5;
  rank.steps[1].step = 6;
  rank.steps[1].start_ns = 10;
  steps.ranks = {RankStepsReport{}, rank};
  CHECK(TimelineStep(steps) == 5u);  // no full steps: the first rank's first step

  // Durations 10, 11, 14, 11: sorted 10, 11, 11, 14, the middle (index 2) is 11:
  // steps 4 and 7 are nearest; the first wins.
  steps.full_steps = {FullStep(3, 10), FullStep(4, 11), FullStep(5, 14), FullStep(7, 11)};
  CHECK(TimelineStep(steps) == 4u);
  // The report's own median wins over the computed one: 14 → step 5.
  steps.median_step_ns = 14;
  CHECK(TimelineStep(steps) == 5u);

  CHECK(RankStep(rank, 6)->start_ns == 10);
  CHECK(RankStep(rank, 7) == nullptr);
}
