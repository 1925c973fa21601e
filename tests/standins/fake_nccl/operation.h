// One NCCL communication call, captured with its arguments so that it can run at once or be
// deferred to the end of a group.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "nccl.h"
#include "reduction.h"

struct ncclComm;

namespace fake_nccl {

enum class OpKind {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kGather,
  kScatter,
  kSend,
  kRecv,
};

const char* OpName(OpKind kind);
// The name of the kernel a collective runs as with FAKE_NCCL_KERNELS=1, in real NCCL's style
// ("ncclDevKernel_AllReduce_Sum_f32_RING_LL" there, without the type and algorithm); static
// storage.
const char* KernelName(OpKind kind);
inline bool IsPointToPoint(OpKind kind) { return kind == OpKind::kSend || kind == OpKind::kRecv; }

struct Operation {
  OpKind kind;
  const void* sendbuff;
  void* recvbuff;
  // As passed to the call: per-rank count for all-gather (sendcount) and reduce-scatter
  // (recvcount), per-peer count for all-to-all, gather and scatter.
  size_t count;
  ncclDataType_t type;
  Reduction reduction;
  int root;  // the root of rooted collectives, the peer of send and receive
  ncclComm* comm;
  cudaStream_t stream;
  // The call's tasks in the profiler's list of the current group (profiler_events.h).
  uint32_t first_task = 0;
  uint32_t task_count = 0;
};

}  // namespace fake_nccl
