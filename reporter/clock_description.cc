#include "reporter/clock_description.h"

#include "reporter/units.h"

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
  return clock;
}

}  // namespace vprof::reporter
