// Full steps in the reports people read: a long run's steps summed up in one
// sentence (spread, the rank that is slowest most often) and only its slowest
// steps listed; a short run's listed whole. Steps are built in memory.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "reporter/render/text/steps_text.h"
#include "reporter/steps/full_steps.h"
#include "unwrapped.h"

using namespace vprof::reporter;
using vprof::reporter::testing::Unwrapped;

namespace {

// `count` full steps from step 1; step s lasts (1000 + (s * 37) % 101) µs,
// so durations are out of order and some repeat. Rank 2 is slowest in every
// step not a multiple of 5, rank 0 in the others.
StepsReport StepsOf(uint32_t count) {
  StepsReport steps;
  steps.first_measured = 1;
  std::vector<int64_t> durations;
  for (uint32_t s = 1; s <= count; ++s) {
    const int64_t duration = (1000 + (s * 37) % 101) * 1000;
    steps.full_steps.push_back({s, s * 10'000'000, duration, s % 5 == 0 ? 0 : 2, 0});
    durations.push_back(duration);
  }
  std::sort(durations.begin(), durations.end());
  steps.median_step_ns = durations[durations.size() / 2];
  return steps;
}

TEST_CASE("a short run's full steps are all listed, in step order") {
  const StepsReport steps = StepsOf(kListedFullSteps);
  const auto listed = ListedFullSteps(steps.full_steps);
  REQUIRE(listed.size() == kListedFullSteps);
  for (size_t i = 0; i < listed.size(); ++i) CHECK(listed[i]->step == i + 1);
  CHECK(FullStepsSentence(steps).find("listed") == std::string::npos);
}

TEST_CASE("a long run lists its slowest full steps, slowest first") {
  const StepsReport steps = StepsOf(500);
  const auto listed = ListedFullSteps(steps.full_steps);
  REQUIRE(listed.size() == kListedFullSteps);
  // Independently: the durations sorted down, and no unlisted step longer
  // than the shortest listed one.
  std::vector<int64_t> all;
  for (const FullStepReport& step : steps.full_steps) all.push_back(step.duration_ns);
  std::sort(all.rbegin(), all.rend());
  for (size_t i = 0; i < listed.size(); ++i) CHECK(listed[i]->duration_ns == all[i]);
  // Ties keep step order: (s * 37) % 101 == 100 for s = 30, 131, 232, 333, 434.
  CHECK(listed[0]->step == 30);
  CHECK(listed[1]->step == 131);
  CHECK(listed[4]->step == 434);
}

TEST_CASE("the spread of full steps and the rank slowest most often") {
  const StepsReport steps = StepsOf(500);
  const FullStepSpread spread = SpreadOf(steps.full_steps);
  // Over 500 steps, (s * 37) % 101 takes every value 0..100 about five
  // times: step 101k has 0, the longest are the five with 100.
  CHECK(spread.shortest_ns == 1'000'000);
  CHECK(spread.longest_ns == 1'100'000);
  std::vector<int64_t> sorted;
  for (const FullStepReport& step : steps.full_steps) sorted.push_back(step.duration_ns);
  std::sort(sorted.begin(), sorted.end());
  CHECK(spread.p90_ns == sorted[449]);  // the 450th of 500
  REQUIRE(spread.slowest_rank_steps.size() == 2);
  CHECK(spread.slowest_rank_steps[0] == std::pair<int32_t, size_t>{2, 400});
  CHECK(spread.slowest_rank_steps[1] == std::pair<int32_t, size_t>{0, 100});
}

TEST_CASE("the text report sums up a long run's full steps and lists its slowest") {
  Report report;
  report.steps = StepsOf(500);
  report.steps->window = "steps 2-501 of 501 (none left out)";
  std::ostringstream out;
  WriteStepsText(report, out);
  const std::string raw = out.str();
  const std::string text = Unwrapped(raw);  // the sentence, its line breaks taken out
  CHECK(text.find("500 steps: shortest 1.00 ms, median ") != std::string::npos);
  CHECK(text.find("longest 1.10 ms; slowest rank 2 in 400 steps, 0 in 100; the 20 slowest "
                  "listed, slowest first (the JSON report has every step):") != std::string::npos);
  // The table: a header, then the slowest first, numbered from 1; index 1 (1.04 ms), step 2,
  // is not listed.
  const size_t table = raw.find("step  duration");
  REQUIRE(table != std::string::npos);
  CHECK(raw.find("\n    31   1.10 ms", table) == raw.find('\n', table));
  CHECK(raw.find("\n     2 ", table) == std::string::npos);
}

}  // namespace
