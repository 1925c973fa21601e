// How exported timelines name what a trace records: kernels, copies, API
// calls and NCCL data types, in the forms Kineto writes, so that tools built
// for PyTorch profiler traces (Holistic Trace Analysis) recognize them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vprof::reporter {

// A kernel name as CUPTI reports it (mangled for __global__ functions),
// demangled as Kineto does it; names that are not mangled come back as they
// are.
std::string DemangledKernelName(std::string_view name);

// "cudaLaunchKernel_v7000" → "cudaLaunchKernel": CUPTI's callback names carry
// the API version; Kineto's and HTA's lists name the function alone.
std::string_view ApiNameWithoutVersion(std::string_view name);

// Whether a CUDA runtime or driver API puts work on the GPU that CUPTI then
// reports with the same correlation id: kernel launches (as the report counts
// them), copies and memsets.
bool LaunchesGpuWork(std::string_view api_name);

// "Memcpy HtoD (Pageable -> Device)", from CUPTI's copy and memory kinds.
std::string MemcpyName(uint32_t copy_kind, uint32_t src_kind, uint32_t dst_kind);

// "ncclFloat32", from NCCL's ncclDataType_t number; "unknown" for others.
std::string_view NcclDataTypeName(int32_t datatype);
// "ncclSum", from NCCL's ncclRedOp_t number; "user op N" for an op the
// program created; "none" below 0 (a call without one).
std::string NcclRedOpName(int32_t red_op);

}  // namespace vprof::reporter
