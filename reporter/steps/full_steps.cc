#include "reporter/steps/full_steps.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace vprof::reporter {
namespace {

// "3" or "3-5".
std::string IndexRange(uint32_t first, uint32_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::string WindowText(uint32_t first, uint32_t last, uint32_t found, uint32_t skipped,
                       uint32_t warmup) {
  std::string text = "steps " + IndexRange(first, last) + " of " + std::to_string(found) + " (";
  if (skipped > 0) text += "steps " + IndexRange(0, skipped - 1) + " before cudaProfilerStart and ";
  if (warmup == 0) return text + "no warmup excluded)";
  return text + "warmup " + IndexRange(skipped, skipped + warmup - 1) + " excluded)";
}

int64_t Median(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

void CompleteFullSteps(StepsReport& report) {
  const uint32_t skipped = report.first_measured - report.warmup_steps;
  uint32_t found = 0;
  uint32_t fewest = UINT32_MAX;
  size_t full_steps = SIZE_MAX;
  for (const RankStepsReport& rank : report.ranks) {
    found = std::max(found, rank.steps_found);
    fewest = std::min(fewest, rank.steps_found);
    full_steps = std::min(full_steps, rank.steps.size());
  }
  report.steps_found = found;
  if (full_steps == 0) {
    report.problem = "a rank has only " + std::to_string(fewest) + " steps, and the first " +
                     std::to_string(report.first_measured) + " are left out (warmup" +
                     (skipped > 0 ? ", steps before cudaProfilerStart" : "") +
                     "); lower --warmup or trace more steps";
    report.window = "no measured steps";
    return;
  }
  report.last_measured = report.first_measured + static_cast<uint32_t>(full_steps) - 1;
  report.window =
      WindowText(report.first_measured, report.last_measured, found, skipped, report.warmup_steps);

  std::vector<int64_t> durations;
  for (size_t i = 0; i < full_steps; ++i) {
    FullStepReport full{report.first_measured + static_cast<uint32_t>(i), INT64_MAX, 0, {}, 0};
    int64_t end = INT64_MIN;
    for (const RankStepsReport& rank : report.ranks) {
      const RankStepReport& step = rank.steps[i];
      full.start_ns = std::min(full.start_ns, step.start_ns);
      if (step.end_ns > end) {
        end = step.end_ns;
        full.slowest_rank = rank.rank;
      }
      full.max_exposed_comm_ns = std::max(full.max_exposed_comm_ns, step.times.exposed_comm_ns);
    }
    full.duration_ns = end - full.start_ns;
    durations.push_back(full.duration_ns);
    report.full_steps.push_back(full);
  }
  report.median_step_ns = Median(durations);
}

}  // namespace vprof::reporter
