#include "reporter/render/timeline_step.h"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "reporter/base/upper_median.h"

namespace vprof::reporter {

std::optional<uint32_t> TimelineStep(const StepsReport& steps) {
  if (!steps.full_steps.empty()) {
    int64_t median = 0;
    if (steps.median_step_ns) {
      median = *steps.median_step_ns;
    } else {
      std::vector<int64_t> durations;
      for (const FullStepReport& step : steps.full_steps) durations.push_back(step.duration_ns);
      median = UpperMedian(std::move(durations));
    }
    const auto nearest = std::min_element(
        steps.full_steps.begin(), steps.full_steps.end(),
        [median](const FullStepReport& a, const FullStepReport& b) {
          return std::llabs(a.duration_ns - median) < std::llabs(b.duration_ns - median);
        });
    return nearest->step;
  }
  for (const RankStepsReport& rank : steps.ranks) {
    if (!rank.steps.empty()) return rank.steps.front().step;
  }
  return std::nullopt;
}

const RankStepReport* RankStep(const RankStepsReport& rank, uint32_t step) {
  for (const RankStepReport& report : rank.steps) {
    if (report.step == step) return &report;
  }
  return nullptr;
}

}  // namespace vprof::reporter
