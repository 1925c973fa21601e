#include "reporter/steps/full_steps.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reporter/base/units.h"
#include "reporter/steps/ledger.h"

namespace vprof::reporter {
namespace {

// "3" or "3-5".
std::string IndexRange(uint32_t first, uint32_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

// "steps 2-20 of 20 (step 1, warmup, left out)", in the steps' numbers
// (`number` of index 0).
std::string WindowText(uint32_t first, uint32_t last, uint32_t found, uint32_t skipped,
                       std::string_view skipped_why, uint32_t warmup, uint32_t number) {
  const auto steps = [&](uint32_t from, uint32_t to) {
    return (from == to ? "step " : "steps ") + IndexRange(from + number, to + number);
  };
  std::string text = steps(first, last) + " of " + std::to_string(found);
  std::vector<std::string> left_out;
  if (skipped > 0) left_out.push_back(steps(0, skipped - 1) + ", " + std::string(skipped_why));
  if (warmup > 0) left_out.push_back(steps(skipped, skipped + warmup - 1) + ", warmup");
  if (left_out.empty()) return text + " (none left out)";
  text += " (";
  for (size_t i = 0; i < left_out.size(); ++i) text += (i == 0 ? "" : "; ") + left_out[i];
  return text + ", left out)";
}

// Why the first steps before the warmup were left out.
std::string SkippedWhy(const StepsReport& report) {
  const std::string profiler_start = "before cudaProfilerStart";
  const std::string graph_replays = "the first CUDA-graph replay's step";
  if (report.before_profiler_start_excluded && report.before_graph_replays_excluded) {
    return profiler_start + " or " + graph_replays;
  }
  return report.before_graph_replays_excluded ? "eager, before " + graph_replays : profiler_start;
}

// The program's numbers where every measured step of every rank has one and
// each is its index plus the same offset (that offset's number for index 0).
std::optional<uint32_t> ProgramFirstNumber(const StepsReport& report) {
  std::optional<int64_t> offset;
  for (const RankStepsReport& rank : report.ranks) {
    for (const RankStepReport& step : rank.steps) {
      if (!step.number) return std::nullopt;
      const int64_t here = int64_t{*step.number} - int64_t{step.step};
      if (offset && *offset != here) return std::nullopt;
      offset = here;
    }
  }
  if (!offset || *offset < 0) return std::nullopt;
  return static_cast<uint32_t>(*offset);
}

int64_t Median(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

void CompleteFullSteps(StepsReport& report) {
  const uint32_t skipped = report.first_measured - report.warmup_steps;
  const std::string skipped_why = SkippedWhy(report);
  uint32_t found = 0;
  uint32_t fewest = UINT32_MAX;
  size_t full_steps = SIZE_MAX;
  for (const RankStepsReport& rank : report.ranks) {
    found = std::max(found, rank.steps_found);
    fewest = std::min(fewest, rank.steps_found);
    full_steps = std::min(full_steps, rank.steps.size());
  }
  report.steps_found = found;
  const std::optional<uint32_t> program = ProgramFirstNumber(report);
  report.program_numbers = program.has_value();
  report.first_number = program.value_or(1);
  if (full_steps == 0) {
    report.problem = "a rank has only " + std::to_string(fewest) + " steps, and the first " +
                     std::to_string(report.first_measured) + " are left out (warmup" +
                     (skipped > 0 ? ", steps " + skipped_why : "") +
                     "); lower --warmup or trace more steps";
    report.window = "no measured steps";
    BuildLedgers(report);
    return;
  }
  report.last_measured = report.first_measured + static_cast<uint32_t>(full_steps) - 1;
  report.window = WindowText(report.first_measured, report.last_measured, found, skipped,
                             skipped_why, report.warmup_steps, report.first_number);

  std::vector<int64_t> durations;
  for (size_t i = 0; i < full_steps; ++i) {
    FullStepReport full{report.first_measured + static_cast<uint32_t>(i), INT64_MAX, 0, {}, 0, {}};
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
  BuildLedgers(report);
}

FullStepSpread SpreadOf(const std::vector<FullStepReport>& steps) {
  FullStepSpread spread;
  if (steps.empty()) return spread;
  std::vector<int64_t> durations;
  std::map<int32_t, size_t> slowest;
  const FullStepReport* longest = &steps.front();
  for (const FullStepReport& step : steps) {
    durations.push_back(step.duration_ns);
    if (step.slowest_rank) ++slowest[*step.slowest_rank];
    if (step.duration_ns > longest->duration_ns) longest = &step;
  }
  spread.longest_step = longest->step;  // an index
  std::sort(durations.begin(), durations.end());
  spread.shortest_ns = durations.front();
  spread.longest_ns = durations.back();
  // Nearest rank: the smallest duration that at least 90% of steps do not exceed.
  spread.p90_ns = durations[(durations.size() * 9 + 9) / 10 - 1];
  spread.slowest_rank_steps.assign(slowest.begin(), slowest.end());
  std::stable_sort(spread.slowest_rank_steps.begin(), spread.slowest_rank_steps.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return spread;
}

std::vector<const FullStepReport*> ListedFullSteps(const std::vector<FullStepReport>& steps) {
  std::vector<const FullStepReport*> listed;
  for (const FullStepReport& step : steps) listed.push_back(&step);
  if (listed.size() <= kListedFullSteps) return listed;
  std::stable_sort(listed.begin(), listed.end(),
                   [](const auto* a, const auto* b) { return a->duration_ns > b->duration_ns; });
  listed.resize(kListedFullSteps);
  return listed;
}

std::string FullStepsSentence(const StepsReport& report) {
  constexpr size_t kNamedRanks = 3;
  const FullStepSpread spread = SpreadOf(report.full_steps);
  std::string text = std::to_string(report.full_steps.size()) + " steps: shortest " +
                     FormatDurationNs(spread.shortest_ns) + ", median " +
                     FormatDurationNs(report.median_step_ns.value_or(0)) + ", p90 " +
                     FormatDurationNs(spread.p90_ns) + ", longest " +
                     FormatDurationNs(spread.longest_ns);
  for (size_t i = 0; i < spread.slowest_rank_steps.size() && i < kNamedRanks; ++i) {
    const auto& [rank, steps] = spread.slowest_rank_steps[i];
    text += (i == 0 ? "; slowest rank " : ", ") + std::to_string(rank) + " in " +
            std::to_string(steps) + (i == 0 ? " steps" : "");
  }
  if (report.full_steps.size() > kListedFullSteps) {
    text += "; the " + std::to_string(kListedFullSteps) +
            " slowest listed, slowest first (the JSON report has every step)";
  }
  return text;
}

}  // namespace vprof::reporter
