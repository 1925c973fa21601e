// Links one process's NCCL calls to the kernels they launched. The capture
// side pushes each call's call_id to CUPTI as an external correlation id, so
// CUPTI writes an ExternalCorrelation (call_id → correlation_id) for every
// CUDA API call made inside the NCCL call, and the kernel a launch started
// carries that launch's correlation_id.
//
// Records arrive in file order, NcclEvents and GPU batches in any order
// relative to each other; CUPTI writes a call's ExternalCorrelation before
// its API record and its kernel. Only what is still in flight is kept:
//  - a correlation until its kernel arrives or its API record shows it was no
//    kernel launch (cudaMalloc, cudaEventRecord, ... inside the call);
//  - a call until its kernels have arrived and it is linked: calls that can
//    launch kernels (collectives and send/recv outside a group, the
//    ncclGroupEnd closing the outermost group) wait from their event on;
//    other calls are kept only while a correlation of theirs is open;
//  - kernels linked before their call's event is read, summed per call.
// Once an ungrouped collective is linked and retired, the span of its kernels
// goes to the span sink, for the cross-rank time (cross_rank_gpu_time.h).
// So memory is proportional to the calls and launches in flight. An entry
// that is never matched stays until the end: a launch whose kernel record was
// dropped or never ran (launches during CUDA graph capture), a call whose
// kernel never came, a correlation whose API record is missing.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>

#include "reporter/base/in_flight_table.h"
#include "reporter/collectives/cross_rank_gpu_time.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/collectives/size_bucket.h"
#include "reporter/gpu/gpu_record.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

// Whether a CUDA runtime or driver API starts kernels: its name holds
// "Launch" (cudaLaunchKernel, cuLaunchKernelEx, cudaGraphLaunch, ...), except
// the host-function launches.
bool LaunchesKernel(std::string_view api_name);

class NcclKernelLinker {
 public:
  NcclKernelLinker() = default;
  // `sink` receives each linked ungrouped collective's kernel span, on the
  // process's own clock.
  explicit NcclKernelLinker(CollectiveSpanSink sink) : span_sink_(std::move(sink)) {}

  // An intercepted NCCL call; ignored without a call_id.
  void AddCall(const vprof::trace::NcclEvent& event, NcclFunction function);
  void AddExternalCorrelation(uint64_t call_id, uint32_t correlation_id);
  // A CUDA API record; one that launches no kernel closes its correlation.
  void AddApiCall(uint32_t correlation_id, bool launches_kernel);
  void AddKernel(uint32_t correlation_id, uint64_t start_ns, uint64_t duration_ns, bool nccl_class);

  // The totals so far, counting kernels still waiting for their call's event
  // as linked_kernels_without_call.
  NcclLinkage Result() const;

  // Entries held: open correlations plus calls (the memory bound, for tests).
  size_t held_entries() const { return launches_.size() + calls_.size(); }

 private:
  struct CallKey {
    NcclFunction function = NcclFunction::kUnknown;
    uint64_t comm_id = 0;
    SizeBucket bucket;        // of S, as the communicator tables bucket it
    bool may_launch = false;  // whether kernels are expected from the call itself
    uint64_t seq = 0;
    uint32_t comm_rank = 0;
    uint32_t comm_size = 0;
  };
  struct CallState {
    std::optional<CallKey> key;  // once the call's NcclEvent was read
    uint32_t open_launches = 0;  // its correlations not yet closed
    bool linked = false;
    uint64_t waiting_kernels = 0;  // linked before the event was read
    int64_t waiting_ns = 0;
    // Its kernels' span so far (first start, last end).
    int64_t first_start_ns = std::numeric_limits<int64_t>::max();
    int64_t last_end_ns = std::numeric_limits<int64_t>::min();
  };

  void Attribute(CallState& call, uint64_t kernels, int64_t gpu_ns);
  void RetireIfDone(uint64_t call_id, const CallState& call);
  void EmitSpan(const CallState& call) const;

  InFlightTable<uint64_t> launches_;  // open correlation_id → call_id
  InFlightTable<CallState> calls_;    // by call_id
  NcclLinkage linkage_;
  CollectiveSpanSink span_sink_;
};

}  // namespace vprof::reporter
