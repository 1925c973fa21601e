#include "reporter/steps/deep_capture.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "reporter/base/units.h"

namespace vprof::reporter {
namespace {

// The lower median of a non-empty list.
int64_t LowerMedian(std::vector<int64_t> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

std::string DeepWindowsText(uint32_t windows) {
  return FormatCount(windows, "deep window", "deep windows");
}

// Over processes whose windows held none of their steps: the steps left out,
// and the most windows one recorded.
struct Unheld {
  uint64_t steps = 0;
  uint32_t most_windows = 0;
};
Unheld UnheldOf(const std::vector<DeepCaptureReport>& processes) {
  Unheld unheld;
  for (const DeepCaptureReport& deep : processes) {
    unheld.steps += deep.shallow_steps;
    unheld.most_windows = std::max(unheld.most_windows, deep.windows);
  }
  return unheld;
}

}  // namespace

std::optional<DeepCaptureReport> DeepCaptureOf(const ProcessSteps& steps, const StepStore& store) {
  if (steps.deep_schedule.empty()) return std::nullopt;
  DeepCaptureReport deep;
  deep.schedule = steps.deep_schedule;
  deep.windows = steps.deep_windows;
  deep.shallow_steps = store.shallow();
  deep.deep_median_ns = steps.deep_step_ns.Median();
  deep.shallow_median_ns = steps.shallow_step_ns.Median();
  return deep;
}

std::string DeepCaptureSentence(const StepsReport& steps) {
  const DeepCaptureReport* first = nullptr;
  uint64_t analyzed = 0, shallow = 0;
  uint32_t most_windows = 0;
  std::vector<int64_t> deep_medians, shallow_medians;
  for (const RankStepsReport& rank : steps.ranks) {
    if (!rank.deep_capture) continue;
    const DeepCaptureReport& deep = *rank.deep_capture;
    if (!first) first = &deep;
    analyzed += rank.steps_found;
    shallow += deep.shallow_steps;
    most_windows = std::max(most_windows, deep.windows);
    if (deep.deep_median_ns && deep.shallow_median_ns) {
      deep_medians.push_back(*deep.deep_median_ns);
      shallow_medians.push_back(*deep.shallow_median_ns);
    }
  }
  // Without ranks the steps' problem says why (NoStepHeldProblem).
  if (!first) return "";
  const Unheld unheld = UnheldOf(steps.deep_without_steps);
  std::string text = "VPROF_DEEP=" + first->schedule + ": GPU activity only in " +
                     DeepWindowsText(std::max(most_windows, unheld.most_windows)) + "; " +
                     std::to_string(analyzed) + " steps analyzed over the ranks, " +
                     std::to_string(shallow + unheld.steps) + " outside the windows left out";
  if (unheld.steps > 0) {
    text += " (" + std::to_string(unheld.steps) + " of them in " +
            FormatCount(steps.deep_without_steps.size(), "process", "processes") +
            " whose windows held no whole step)";
  }
  if (deep_medians.empty()) {
    return text +
           "; what deep capture adds to a step is not known (it needs NVTX steps inside "
           "and outside the windows)";
  }
  const int64_t inside = LowerMedian(deep_medians);
  const int64_t outside = LowerMedian(shallow_medians);
  const int64_t added = inside - outside;
  text += "; median step " + FormatDurationNs(inside) + " inside the windows, " +
          FormatDurationNs(outside) + " outside";
  if (added <= 0 || outside <= 0) return text + ": deep capture added no measurable time";
  return text + ": deep capture added about " + FormatDurationNs(added) + " (+" +
         FormatPercent(static_cast<double>(added) / static_cast<double>(outside)) +
         ") to each analyzed step: the cost of recording the windows' GPU activity, which their "
         "figures include (host-bound idle above all)";
}

std::string NoStepHeldProblem(const std::vector<DeepCaptureReport>& unheld) {
  const Unheld left_out = UnheldOf(unheld);
  if (left_out.steps == 0) return "";
  return "VPROF_DEEP=" + unheld.front().schedule + ": no deep window held a whole step (" +
         DeepWindowsText(left_out.most_windows) + ", " + std::to_string(left_out.steps) +
         " steps outside them left out), and only the steps a window holds are analyzed; a "
         "window must be longer than a step (VPROF_DEEP's ON, or vprof trigger --seconds)";
}

std::string NoGpuActivityProblem(const std::string& schedule, uint32_t windows) {
  if (windows > 0) {
    return "VPROF_DEEP=" + schedule + ": the " + DeepWindowsText(windows) +
           " held no GPU kernel, and GPU activity is recorded only "
           "inside deep windows";
  }
  return "VPROF_DEEP=" + schedule +
         ": no deep window opened, and GPU activity is recorded only inside one (windows open "
         "in the processes that initialised CUDA; vprof trigger DIR opens one in all of them)";
}

}  // namespace vprof::reporter
