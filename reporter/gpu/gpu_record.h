// What the reporter learns about one process's GPU activity (CUPTI records in
// GpuBatch packets, GpuCaptureStatus) while its trace streams past: totals,
// not records, so memory does not grow with the trace.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "reporter/base/duration_histogram.h"
#include "reporter/base/saturating_ns.h"
#include "reporter/base/trace_forward.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/gpu/graph_node_counts.h"
#include "reporter/gpu/memory_events.h"

namespace vprof::reporter {

// Count, bytes (where the activity moves any) and summed duration.
struct ActivityTotals {
  uint64_t count = 0;
  uint64_t bytes = 0;
  int64_t total_ns = 0;

  // A duration from the wire may be anything: the total stops at INT64_MAX
  // instead of overflowing.
  void Add(uint64_t add_bytes, uint64_t duration_ns) {
    ++count;
    bytes += add_bytes;
    total_ns = SaturatingAdd(total_ns, ClampedNs(duration_ns));
  }
  // Adds another's totals, the time stopping at the ends of int64 as Add's.
  void Merge(const ActivityTotals& other) {
    count += other.count;
    bytes += other.bytes;
    total_ns = SaturatingAdd(total_ns, other.total_ns);
  }
};

// The totals of a map of them (by API or kernel name) together.
inline ActivityTotals SumOf(const std::map<std::string, ActivityTotals>& by_name) {
  ActivityTotals sum;
  for (const auto& [name, totals] : by_name) sum.Merge(totals);
  return sum;
}

// Kernels linked to NCCL calls (through ExternalCorrelation) and their time.
struct LinkedGpuTime {
  uint64_t linked_calls = 0;  // calls with at least one linked kernel
  uint64_t kernels = 0;
  int64_t gpu_ns = 0;  // sum of the linked kernels' durations

  void Add(bool first_link, uint64_t add_kernels, int64_t add_gpu_ns) {
    if (first_link) ++linked_calls;
    kernels += add_kernels;
    gpu_ns += add_gpu_ns;
  }
  void Merge(const LinkedGpuTime& other) {
    linked_calls += other.linked_calls;
    kernels += other.kernels;
    gpu_ns += other.gpu_ns;
  }
};

// One NCCL function's calls in one process (those with a call_id).
struct NcclFunctionGpuTime {
  uint64_t calls = 0;
  int64_t host_ns = 0;  // sum of exit − enter over the calls
  LinkedGpuTime linked;
};

struct NcclLinkage {
  uint64_t calls = 0;           // collective and send/recv events with a call_id
  uint64_t grouped_calls = 0;   // of those, inside a group: ncclGroupEnd launches their kernels
  uint64_t linked_calls = 0;    // of those, with at least one linked kernel
  uint64_t linked_kernels = 0;  // kernels whose correlation leads to an intercepted call
  // Of those, kernels whose call's NcclEvent was never read (dropped, or a
  // function vprof times but does not expect to launch kernels, read first).
  uint64_t linked_kernels_without_call = 0;
  uint64_t nccl_kernels = 0;           // kernels of class "nccl"
  uint64_t unlinked_nccl_kernels = 0;  // of those, linked to no intercepted call
  std::map<NcclFunction, NcclFunctionGpuTime> functions;
  // For the communicator tables: keyed like CollectiveStats::ops() (send and
  // recv as kSendRecvPair); calls without a communicator are left out.
  std::map<OpKey, LinkedGpuTime> collectives;
};

struct StreamWaits {
  uint64_t event_records = 0;  // CudaEventRecord
  uint64_t waits = 0;          // GpuSync of type 2: a stream waits on an event
  uint64_t matched_waits = 0;  // waits whose event_sync_id names a record read before them
  // (recording stream, waiting stream) → matched waits.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> edges;
};

// A GPU the process could see (a GpuDevice record).
struct DeviceInfo {
  std::string uuid;  // as nvidia-smi shows it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string name;  // e.g. "NVIDIA H200"
};

struct GpuRecord {
  // The last one read; shared, never changed once read, so that copying a
  // record does not copy it and this header needs no message layout.
  std::shared_ptr<const vprof::trace::GpuCaptureStatus> capture;
  uint64_t batches = 0;  // GpuBatch packets
  ActivityTotals kernels;
  ActivityTotals memcpy;
  ActivityTotals memset;
  ActivityTotals syncs;
  uint64_t api_calls = 0;
  // How long the program's calls that launch kernels or graphs took, as
  // recorded: with what recording adds to each (LaunchCostEstimate's upper bound).
  DurationHistogram launch_calls;
  uint64_t dropped_records = 0;  // sum of GpuBatch.dropped
  int64_t cupti_overhead_ns = 0;
  std::map<std::string, ActivityTotals> kernels_by_name;
  NcclLinkage nccl;
  StreamWaits stream_waits;
  // For the coverage check (coverage.h).
  // Kernels of class "nccl" that a CUDA graph launched (graph_id ≠ 0): each
  // replay runs them again, and neither the wrappers nor NCCL's profiler
  // plugin see a call.
  uint64_t nccl_graph_kernels = 0;
  // CUDA IPC API records (ApiClassOf: cudaIpcOpenMemHandle, ...) by API name:
  // data moved between processes' GPUs outside NCCL.
  std::map<std::string, ActivityTotals> ipc_calls;
  // Memcpy records of kind PTOP (CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: between two
  // GPUs; device-to-device copies on one GPU are DTOD): data moved between
  // GPUs outside NCCL. Count, bytes, time.
  ActivityTotals peer_copies;
  // Memcpy records from or into pageable host memory (either side), and those from or into
  // pinned host memory with no pageable side: what pinning could still change, and what is
  // pinned already. Count, bytes, time.
  ActivityTotals pageable_copies;
  ActivityTotals pinned_copies;
  // vprof's own kernels (the collective fingerprints, interpose/audit/; the launch-cost
  // calibration's are left out, and counted in its own figures): not the
  // program's, so in no other figure of the report.
  ActivityTotals vprof_kernels;
  // CUDA-graph replays recorded whole (GpuGraphReplay, the light plan's
  // GRAPH_TRACE): their nodes are in no kernel, copy or memset figure.
  ActivityTotals graph_replays;
  // The kernels, fills and copies those replays ran, from their graphs' node
  // lists (GpuGraphNodes), and the replays of a graph whose list the trace lacks.
  GraphNodes graph_replay_nodes;
  uint64_t graph_replays_unlisted = 0;
  // By CUPTI device id, which is the CUDA device ordinal in the process
  // (CommunicatorMembership::cuda_device). One entry per GPU, never per record.
  std::map<uint32_t, DeviceInfo> devices;
  MemoryRecord memory;

  // Whether the process ran GPU work: kernels, recorded one by one or inside
  // replays recorded whole.
  bool ran_kernels() const { return kernels.count > 0 || graph_replays.count > 0; }

  // The UUID of a CUDA device of the process, when CUPTI described it; ""
  // otherwise (and for -1, an unknown device).
  std::string UuidOf(int32_t cuda_device) const {
    if (cuda_device < 0) return "";
    const auto device = devices.find(static_cast<uint32_t>(cuda_device));
    return device == devices.end() ? "" : device->second.uuid;
  }
};

}  // namespace vprof::reporter
