// One piece of GPU work (a kernel, memcpy, memset or whole graph replay) as the step analysis
// keeps it while its step is open: times, stream, what kind of work it is, and
// when the CPU launched it.
#pragma once

#include <cstdint>

#include "reporter/collectives/nccl_function.h"

namespace vprof::reporter {

enum class WorkKind : uint8_t {
  kCompute,  // kernels that are not communication
  kComm,     // kernels of class "nccl" or "custom_allreduce"
  kCopy,     // memcpy, memset
};

// Ordered so that it packs into 72 bytes: the open steps of every process
// hold millions of these.
struct GpuWork {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // The start of the CUDA API call that launched it (the CPU's view).
  int64_t launch_ns = 0;
  uint64_t name_iid = 0;  // kernels only
  // The intercepted NCCL call that launched it (ExternalCorrelation.external_id
  // = NcclEvent.call_id); 0 when none.
  uint64_t call_id = 0;
  // Communication kernels: the call's function, communicator and bytes once
  // the step is analyzed; without a linked call, the function the kernel name
  // says ("ncclDevKernel_AllReduce_…") and 0.
  uint64_t comm_id = 0;
  uint64_t bytes = 0;
  uint32_t stream = 0;
  uint32_t correlation_id = 0;
  uint32_t tid = 0;  // the thread of the API call that launched it
  NcclFunction function = NcclFunction::kUnknown;
  WorkKind kind = WorkKind::kCompute;
  // Bits, so that the struct keeps its 72 bytes.
  bool optimizer : 1 = false;   // kernel class "optimizer"
  bool from_graph : 1 = false;  // a node of a CUDA graph launch: its launch started many
  // A CUDA-graph replay recorded whole (GpuGraphReplay): one piece of compute
  // work from its first node's start to its last node's end, nodes unknown.
  bool whole_graph : 1 = false;
};
static_assert(sizeof(GpuWork) <= 72);

}  // namespace vprof::reporter
