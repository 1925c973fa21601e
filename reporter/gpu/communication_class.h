// Communication between GPUs that NCCL never sees, recognised by name: vLLM's
// custom all-reduce kernels and CUDA IPC calls (weight sync in colocated
// training and rollout). The rules are rows of the one table in
// kernel_class_rules.cc, next to the kernel classes. Peer copies are
// recognised by their copy kind instead.
#pragma once

#include <cstdint>
#include <string_view>

namespace vprof::reporter {

// The kernel class (KernelClassOf) of vLLM's custom all-reduce.
inline constexpr std::string_view kCustomAllReduceKernelClass = "custom_allreduce";

// The API class of CUDA IPC calls: cudaIpcOpenMemHandle, cudaIpcGetMemHandle,
// cudaIpcCloseMemHandle, the event-handle pair, and their driver forms (cuIpc*).
inline constexpr std::string_view kIpcApiClass = "ipc";
inline constexpr std::string_view kOtherApiClass = "other";

// GpuMemcpy.copy_kind of a copy between two GPUs: CUPTI_ACTIVITY_MEMCPY_KIND_PTOP.
// CUPTI reports such copies (cudaMemcpyPeer, Tensor.copy_ across devices) as
// MEMCPY2 records, which also carry both devices; a device-to-device copy
// within one GPU is DTOD (8) and moves nothing between GPUs.
inline constexpr uint32_t kPeerToPeerCopyKind = 10;

// kIpcApiClass or kOtherApiClass, for a CUDA runtime or driver API name.
std::string_view ApiClassOf(std::string_view api_name);

}  // namespace vprof::reporter
