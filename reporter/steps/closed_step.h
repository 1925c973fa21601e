// A step whose GPU records have all been read: what the step collectors hand
// to the analysis.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "reporter/steps/gpu_work.h"

namespace vprof::reporter {

struct ClosedStep {
  // The step on the CPU clock: the NVTX range, or for an inferred step the
  // launches of its first GPU work and of its last optimizer kernel.
  int64_t range_start_ns = 0;
  int64_t range_end_ns = 0;
  // The window its GPU work is measured over (not overlapping the previous one's).
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  std::vector<GpuWork> works;  // launched inside the step
  // The number the program gave the step in its range's name ("train_step
  // 7", "ProfilerStep#7"); none for inferred steps or a name without one.
  std::optional<uint32_t> number;
};

// The sink may move the step's work out; what it leaves behind, the collector
// reuses for a later step (a step's vector allocated anew each time was a
// tenth of a report's time).
using ClosedStepSink = std::function<void(ClosedStep&)>;

}  // namespace vprof::reporter
