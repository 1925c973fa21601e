// The simulated model's stand-in kernels. Their addresses are what cudaLaunchKernel receives, so
// a profiler can name them (dladdr); their bodies never run. Like every stand-in kernel, the
// first parameter is the duration in nanoseconds.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

extern "C" {
void sim_fwd_kernel(uint64_t duration_ns);
void sim_bwd_kernel(uint64_t duration_ns);
void sim_opt_kernel(uint64_t duration_ns);
// Named as torch.optim's fused and foreach kernels are (multi_tensor_apply_kernel<...>), so that
// the reporter classes it as an optimizer kernel.
void sim_multi_tensor_apply_kernel(uint64_t duration_ns);
}

namespace sim {

cudaError_t LaunchKernel(void (*kernel)(uint64_t), uint64_t duration_us, cudaStream_t stream);

}  // namespace sim
