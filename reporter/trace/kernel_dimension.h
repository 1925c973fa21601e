// A kernel's grid or block dimension as the trace holds it: capture leaves a
// dimension of 1 out (GpuKernel in schema/vprof_trace.proto), so 0 reads as 1.
#pragma once

#include <cstdint>

namespace vprof::reporter {

inline uint32_t KernelDimension(uint32_t written) { return written == 0 ? 1 : written; }

}  // namespace vprof::reporter
