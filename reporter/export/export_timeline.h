// What one process's trace holds, record by record, as an exporter writes it:
// times moved onto the export's timeline (nanoseconds since its origin, every
// process on one clock), interned names looked up, NCCL calls tied to the
// kernels they launched. The trace walker produces these; each output format
// is a TimelineSink.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reporter/export/export_nccl_links.h"
#include "reporter/gpu/graph_node_counts.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

struct NvtxItem {
  const vprof::trace::NvtxRange& record;
  std::string_view name;
  std::string_view domain;  // empty for the default domain
  uint32_t tid = 0;         // the thread that started it
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct ApiItem {
  const vprof::trace::ApiCall& record;
  std::string_view name;  // as CUPTI names it ("cudaLaunchKernel_v7000")
  int64_t start_ns = 0;
  std::optional<uint64_t> nccl_call_id;  // the NCCL call it was made in
  bool launches_gpu_work = false;        // a kernel, copy or memset carries its correlation
};

struct KernelItem {
  const vprof::trace::GpuKernel& record;
  std::string_view name;   // demangled
  bool vprof_own = false;  // one of vprof's own kernels (vprof_kernels.h), not the program's
  int64_t start_ns = 0;
  std::optional<uint64_t> nccl_call_id;
  const NcclCallSite* nccl_call = nullptr;  // when the call's event was read
};

struct CopyItem {
  const vprof::trace::GpuMemcpy& record;
  int64_t start_ns = 0;
  std::optional<uint64_t> nccl_call_id;
};

struct MemsetItem {
  const vprof::trace::GpuMemset& record;
  int64_t start_ns = 0;
  std::optional<uint64_t> nccl_call_id;
};

// A CUDA-graph replay recorded whole: one slice for all its nodes.
struct GraphReplayItem {
  const vprof::trace::GpuGraphReplay& record;
  int64_t start_ns = 0;
  // What it ran, from its graph's node list; none: the trace has no list of it.
  std::optional<GraphNodes> nodes;
};

// What every timeline calls a replay recorded whole.
inline std::string GraphReplayName(uint32_t graph_id) {
  return "CUDA graph " + std::to_string(graph_id) + " (recorded whole)";
}

// The device memory a process holds from CUDA on one GPU, as of an
// allocation or release (GpuMemoryOp): the sum of every change up to it.
struct MemoryHeldItem {
  uint32_t device = 0;
  int64_t at_ns = 0;
  int64_t bytes = 0;
};

// A GPU's memory in use as NVML sampled it.
struct DeviceMemorySampleItem {
  const vprof::trace::DeviceMemorySample& record;
  int64_t at_ns = 0;
};

// A communicator as NCCL's profiler plugin interface announced it.
struct PluginComm {
  uint64_t comm_hash = 0;
  std::string name;  // commName; empty when NCCL gave none
  uint32_t nranks = 0;
  uint32_t rank = 0;
};

// What the timelines call a communicator's track: "NCCL plugin: world 0xabc
// (rank 0 of 2)", or by its context when it was never announced.
std::string PluginTrackName(uint64_t context_id, const PluginComm* comm);

// What the timelines call a GPU stream's track: "stream 7 (GPU 0)".
std::string GpuTrackName(uint32_t device, uint32_t stream);

// What the timelines call a GPU's memory counters: "GPU 0 memory held" (what
// the process holds from CUDA), "GPU 0 memory in use" (NVML's, the device's).
std::string MemoryHeldName(uint32_t device);
std::string MemoryInUseName(uint32_t device);

struct PluginCollItem {
  const vprof::trace::NcclPluginEvent& record;
  const PluginComm* comm = nullptr;  // none when its context was not announced
  std::string_view function;         // "AllReduce", ...
  std::string_view algorithm;        // "RING", ...
  std::string_view protocol;         // "LL", ...
  std::string_view datatype;
  int64_t start_ns = 0;
  int64_t stop_ns = 0;  // NCCL enqueued the work (not: the GPU finished it)
};

// The flows a timeline draws: from a launch to its GPU work, from an NCCL call
// to its kernels, and the async NVTX ranges of the Chrome format.
enum class FlowKind : uint64_t { kLaunch = 0, kNcclCall = 1, kNvtxRange = 2 };

// Flow ids are unique in the whole document: the process's index above the
// per-process id and its kind.
inline uint64_t FlowId(uint32_t process_index, FlowKind kind, uint64_t id) {
  return (static_cast<uint64_t>(process_index) << 34) | (static_cast<uint64_t>(kind) << 32) |
         (id & 0xFFFFFFFFu);
}

// end − start, or 0 for a record whose end precedes its start.
inline int64_t ClampedDuration(int64_t start_ns, int64_t end_ns) {
  return end_ns > start_ns ? end_ns - start_ns : 0;
}

class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  virtual void ThreadName(uint32_t tid, std::string_view name) = 0;
  virtual void NcclCall(const NcclCallSite& call) = 0;
  virtual void Nvtx(const NvtxItem& range) = 0;
  virtual void Api(const ApiItem& api) = 0;
  virtual void Kernel(const KernelItem& kernel) = 0;
  virtual void Memcpy(const CopyItem& copy) = 0;
  virtual void Memset(const MemsetItem& set) = 0;
  virtual void GraphReplay(const GraphReplayItem& replay) = 0;
  virtual void PluginColl(const PluginCollItem& coll) = 0;
  // Only the Chrome and Perfetto timelines draw memory (counter tracks); other sinks leave it.
  // Held memory comes after every other record of the process, in time order.
  virtual void MemoryHeld(const MemoryHeldItem&) {}
  virtual void DeviceMemorySample(const DeviceMemorySampleItem&) {}
};

}  // namespace vprof::reporter
