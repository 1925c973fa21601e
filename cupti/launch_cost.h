// What recording adds to a kernel launch in this process: vprof's own host
// cost per launch, measured once so that the report can state it beside the
// figures it inflates (host-bound idle first of all).
//
// Measured on the thread that created the process's first CUDA context,
// inside CUPTI's context-created callback, before the program has run
// anything: no other GPU work exists in the process yet, so switching the
// capture plan off for a few milliseconds loses none of the program's
// records. vprof's empty kernel (vprof_calibrate, interpose/core/fingerprint_kernel.cu)
// is launched in batches on a stream of its own, rounds with the plan off and
// on interleaved; each batch queues behind a kernel that keeps the GPU busy
// until the host is done (vprof_calibrate_wait), so it then runs back to back
// and two events time the GPU's side. The reporter leaves vprof's kernel
// records out by name.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>

namespace vprof {

struct LaunchCost {
  uint32_t rounds = 0;  // of each kind
  uint32_t launches_per_round = 0;
  uint64_t bare_launch_ns = 0;        // host time, median per launch, plan off
  uint64_t traced_launch_ns = 0;      // plan on
  uint64_t bare_kernel_gpu_ns = 0;    // GPU time, median per kernel run back to back, plan off
  uint64_t traced_kernel_gpu_ns = 0;  // plan on
  uint64_t begin_ns = 0, end_ns = 0;
  std::string failure;      // non-empty: not measured, the figures are 0
  std::string gpu_failure;  // non-empty: the GPU figures are 0, the host's stand
};

// `record(on)` enables or disables the capture plan and answers whether it
// could; the plan is left as `was_on` found it. The caller must not hold a
// lock that CUPTI's callbacks take (the buffer lock): launches and
// synchronisation may complete activity buffers.
LaunchCost MeasureLaunchCost(CUcontext ctx, const std::function<bool(bool)>& record, bool was_on);

}  // namespace vprof
