#include "reporter/summary/launch_cost_text.h"

#include "reporter/base/units.h"

namespace vprof::reporter {

std::string LaunchCostSentence(const StepsReport& steps) {
  const RankStepsReport* most = nullptr;
  size_t calibrated = 0;
  for (const RankStepsReport& rank : steps.ranks) {
    if (!rank.launch_cost || rank.launch_cost->steps == 0) continue;
    ++calibrated;
    if (!most || rank.launch_cost->per_step_ns() > most->launch_cost->per_step_ns()) most = &rank;
  }
  if (!most) return "";
  const LaunchCostEstimate& cost = *most->launch_cost;
  const int64_t per_step = cost.per_step_ns();
  const int64_t window = most->total.window_ns / cost.steps;
  const int64_t host_idle = most->total.idle_host_bound_ns / cost.steps;
  const std::string who = most->rank ? "rank " + std::to_string(*most->rank) : most->file;
  std::string text =
      "recording adds " + FormatDurationNs(static_cast<int64_t>(cost.added_per_launch_ns)) +
      " to each launch (calibrated as CUDA started: " +
      FormatDurationNs(static_cast<int64_t>(cost.bare_per_launch_ns + cost.added_per_launch_ns)) +
      " a launch recorded, " + FormatDurationNs(static_cast<int64_t>(cost.bare_per_launch_ns)) +
      " not); " + who + " launched " + std::to_string(cost.launches / cost.steps) +
      " times per step: ";
  const auto share = [&](int64_t ns) {
    return FormatPercent(static_cast<double>(ns) / static_cast<double>(window));
  };
  const std::optional<int64_t> upper = cost.upper_per_step_ns();
  if (upper && *upper > per_step) {
    // The program's launches may cost more to record than the calibration's empty kernel.
    text +=
        FormatDurationNs(per_step) + " to " + FormatDurationNs(*upper) + " of host time per step";
    if (window > 0)
      text += " (" + share(per_step) + " to " + share(*upper) + " of its mean step window)";
    text += ", the most from its launches' median of " +
            FormatDurationNs(static_cast<int64_t>(cost.recorded_launch_call_ns)) +
            " each as recorded";
  } else {
    text += FormatDurationNs(per_step) + " of host time per step";
    if (window > 0) text += " (" + share(per_step) + " of its mean step window)";
  }
  text += ", which lengthens a step only where the GPU waits for the host: host-bound idle " +
          FormatDurationNs(host_idle) + " per step";
  if (cost.added_gpu_per_kernel_ns > 0) {
    text += "; on the GPU it adds " +
            FormatDurationNs(static_cast<int64_t>(cost.added_gpu_per_kernel_ns)) +
            " to each kernel run back to back (the nodes of a CUDA graph)";
  }
  if (calibrated > 1) text += "; the most of " + std::to_string(calibrated) + " ranks";
  return text;
}

}  // namespace vprof::reporter
