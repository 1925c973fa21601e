#include "reporter/render/clock_description.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "reporter/base/units.h"
#include "reporter/consistency/clock_collective_check.h"

namespace vprof::reporter {

std::string ClockDescription(const TimeSource& time) {
  if (!time.aligned_to_realtime) {
    return "CLOCK_MONOTONIC of host " + (time.hosts.empty() ? "?" : time.hosts.front());
  }
  std::string clock = "CLOCK_REALTIME: " + std::to_string(time.hosts.size()) +
                      " hosts; each process's times shifted by the median offset of its clock "
                      "samples; error bound ±" +
                      FormatDuration(static_cast<double>(time.clock_error_bound_ns)) +
                      " (largest sample spread)";
  if (time.unaligned_processes > 0) {
    clock += "; " + std::to_string(time.unaligned_processes) +
             " processes had no clock samples and were not shifted";
  }
  for (const FarClock& far : time.far_clocks) clock += "; " + FarClockDescription(far);
  return clock;
}

std::string FarClockDescription(const FarClock& far) {
  const double years = std::abs(static_cast<double>(far.from_median_ns)) / 3.15576e16;
  char figures[96];
  std::snprintf(figures, sizeof figures, "%.1f years %s the other processes' (its start %+.3g ns",
                years, far.from_median_ns < 0 ? "behind" : "ahead of",
                static_cast<double>(far.from_median_ns));
  return "clock of " + far.file +
         (far.rank ? " (rank " + std::to_string(*far.rank) + ")" : std::string()) + " " + figures +
         " from the median): its lateness and skews are not comparable";
}

std::optional<std::string> ClockCheckDescription(const TimeSource& time) {
  const ProcessClock* furthest = nullptr;
  const ProcessClock* drifting = nullptr;
  size_t checked = 0, outside_bound = 0;
  for (const ProcessClock& process : time.processes) {
    if (!process.collectives) continue;
    const CollectiveClockEstimate& estimate = *process.collectives;
    ++checked;
    if (std::llabs(estimate.offset_ns) > estimate.error_bound_ns) ++outside_bound;
    if (!furthest ||
        std::llabs(estimate.offset_ns) > std::llabs(furthest->collectives->offset_ns)) {
      furthest = &process;
    }
    if (estimate.drift_ns_per_s &&
        (!drifting ||
         std::abs(*estimate.drift_ns_per_s) > std::abs(*drifting->collectives->drift_ns_per_s))) {
      drifting = &process;
    }
  }
  if (checked == 0) return std::nullopt;
  const CollectiveClockEstimate& far = *furthest->collectives;
  std::string drift = "drift not fitted (collectives over less than " +
                      FormatDuration(static_cast<double>(kMinDriftSpanNs)) + ")";
  if (drifting) {
    char figure[64];
    std::snprintf(figure, sizeof figure, "%+.1f ns/s", *drifting->collectives->drift_ns_per_s);
    drift = "largest drift " + std::string(figure) + " (" + drifting->file + ")";
  }
  const auto processes = [](size_t count) { return FormatCount(count, "process", "processes"); };
  std::string text =
      "collective kernel ends against " + time.collective_reference + "'s (" + processes(checked) +
      " checked): largest offset " + (far.offset_ns >= 0 ? "+" : "") +
      FormatDuration(static_cast<double>(far.offset_ns)) + " ±" +
      FormatDuration(static_cast<double>(far.error_bound_ns)) + " (" + furthest->file + ", " +
      std::to_string(far.collectives) + " collectives), " + drift + "; ";
  text += outside_bound == 0 ? "all within their bounds: the clocks agree"
                             : processes(outside_bound) +
                                   " off by more than the bound: times are shifted against the "
                                   "reference's by about the offset";
  return text + "; measured, not applied";
}

}  // namespace vprof::reporter
