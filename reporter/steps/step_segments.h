// Where one step's time went on one process: the GPU work launched inside the
// step, cut by a sweep over its window into compute, exposed and overlapped
// communication, copies and idle time (SegmentTimes), with the reasons for
// exposure, the gradient buckets and the streams' use.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "reporter/steps/gpu_work.h"
#include "reporter/steps/step_record.h"

namespace vprof::reporter {

struct StepContext {
  bool max_connections_one = false;
  // Whether the process has NVTX "backward" phase ranges; when it has, the
  // gradient buckets are the reductions launched inside them (`backward`,
  // [start, end] on the CPU clock), else those launched before the step's
  // first optimizer kernel.
  bool has_backward_phase = false;
  std::vector<std::pair<int64_t, int64_t>> backward;
  // Per work, in `works` order, where given (else every work has phase 0
  // and seq 0): the phase of its launch, a step-local index (StepResult's
  // phase_table), and for communication kernels the seq of the call that
  // launched them (0: unknown).
  std::span<const PhaseIndex> work_phase;
  std::span<const uint64_t> work_seq;
};

// How much of a StepResult to fill: all of it, or only its times (the
// phases of a step keep no more).
enum class StepAnalysis : uint8_t { kFull, kTimesOnly };

// `works`: the GPU work launched inside the step, in any order; each piece is
// clipped to [window_start, window_end]. Its working vectors are kept per
// thread from call to call.
StepResult AnalyzeStep(int64_t range_start_ns, int64_t window_start_ns, int64_t window_end_ns,
                       std::span<const GpuWork> works, const StepContext& context,
                       StepAnalysis depth = StepAnalysis::kFull);

}  // namespace vprof::reporter
