// What phase inference (inferred_phase.h) needs of one process beyond what
// ProcessRecord's GPU totals keep: its role (process_role.h: from its title,
// command line, environment or kernels), its GPU span and busy time, for the
// idle row, and which kernels other threads than the main one launched.
// Filled while the trace streams past
// (inferred_phase_reader.h; the threads by step_tracker.h, which matches
// kernels with their launch calls, and finds the forward-only passes).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "reporter/gpu/gpu_record.h"
#include "reporter/phases/process_role.h"

namespace vprof::reporter {

struct InferredPhaseInput {
  ProcessRoleMatch role;
  // The first kernel's start and the last kernel's end; both 0 without kernels.
  uint64_t first_kernel_start_ns = 0;
  uint64_t last_kernel_end_ns = 0;
  // The time at least one kernel ran: the union of the kernels' intervals.
  int64_t kernel_busy_ns = 0;
  // Kernels launched from a thread other than the main one (the thread of
  // the first kernel), by kernel name: in PyTorch, backward runs on the
  // autograd engine's device thread, forward on the caller's.
  std::map<std::string, ActivityTotals> off_main_thread_kernels;
  // Main-thread kernels of forward-only passes (logprob), by kernel name:
  // those a step launched before its first training forward
  // (StepTracker::ForwardOnlyKernels).
  std::map<std::string, ActivityTotals> forward_only_kernels;

  int64_t kernel_span_ns() const {
    return static_cast<int64_t>(last_kernel_end_ns - first_kernel_start_ns);
  }
};

}  // namespace vprof::reporter
