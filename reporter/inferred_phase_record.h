// What phase inference (inferred_phase.h) needs of one process beyond what
// ProcessRecord's GPU totals keep: its role, from the RunHeader's argv, and
// its GPU span and busy time, for the idle row. Filled while the trace
// streams past (inferred_phase_reader.h); a few numbers per process.
#pragma once

#include <cstdint>
#include <string>

#include "reporter/process_role.h"

namespace vprof::reporter {

struct InferredPhaseInput {
  ProcessRoleMatch role;
  // The first kernel's start and the last kernel's end; both 0 without kernels.
  uint64_t first_kernel_start_ns = 0;
  uint64_t last_kernel_end_ns = 0;
  // The time at least one kernel ran: the union of the kernels' intervals.
  int64_t kernel_busy_ns = 0;

  int64_t kernel_span_ns() const {
    return static_cast<int64_t>(last_kernel_end_ns - first_kernel_start_ns);
  }
};

}  // namespace vprof::reporter
