// One process's GPU activity as the report shows it: what the text and JSON
// writers print, every mean, share and ranking already computed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/base/trace_forward.h"
#include "reporter/gpu/api_records.h"
#include "reporter/gpu/gpu_record.h"

namespace vprof::reporter {

// How many kernels, and stream-wait edges, a process lists.
inline constexpr size_t kTopKernels = 10;
inline constexpr size_t kTopStreamEdges = 10;

// What recording adds to one kernel launch in this process, as the capture
// measured it once at its first CUDA context (the trace's
// LaunchCostCalibration): medians of a launch's host time with the capture
// plan off and on: a launch's host time, and a kernel's GPU time when
// kernels run back to back.
struct LaunchCostReport {
  uint32_t rounds = 0;
  uint32_t launches_per_round = 0;
  uint64_t bare_launch_ns = 0;
  uint64_t traced_launch_ns = 0;
  std::string failure;  // why it was not measured; the figures are then 0
  uint64_t bare_kernel_gpu_ns = 0;
  uint64_t traced_kernel_gpu_ns = 0;
  std::string gpu_failure;  // why the GPU figures are 0

  // What recording adds to a launch on the host, and to a kernel on the GPU:
  // recorded − bare, 0 where recording measured faster (noise).
  uint64_t added_ns() const {
    return traced_launch_ns > bare_launch_ns ? traced_launch_ns - bare_launch_ns : 0;
  }
  uint64_t added_gpu_ns() const {
    return traced_kernel_gpu_ns > bare_kernel_gpu_ns ? traced_kernel_gpu_ns - bare_kernel_gpu_ns
                                                     : 0;
  }
};

// The calibration as the trace holds it (GpuCaptureStatus.launch_cost).
LaunchCostReport LaunchCostReportOf(const vprof::trace::LaunchCostCalibration& calibration);

// A process's GPU capture as its GpuCaptureStatus says (the trace's
// GpuCaptureState and HwTrace, read into the report's own enums).
enum class GpuCaptureState : uint8_t {
  kUnspecified,
  kActive,
  kUnavailable,
  kSubscriberConflict,  // another tool held CUPTI
  kFailed,
};
// "active", "unavailable", "subscriber_conflict", "failed", "unspecified".
std::string_view GpuCaptureStateName(GpuCaptureState state);

// Hardware-event kernel timestamps.
enum class HwTraceState : uint8_t { kNotAsked, kOn, kNotSupported, kUnavailable };
// "on", "not_supported", "unavailable", or "" (not asked).
std::string_view HwTraceStateName(HwTraceState state);

// "all", "selected", "none".
std::string_view ApiRecordsName(ApiRecords records);

struct GpuCaptureReport {
  GpuCaptureState state = GpuCaptureState::kUnspecified;
  std::string detail;
  std::string cupti_path;
  uint32_t cupti_version = 0;
  std::string timestamp_source;
  std::string cuda_injection_found;
  std::string mode;  // VPROF_CUPTI_KINDS as read: "light", "all", or a list
  ApiRecords api_records = ApiRecords::kNone;  // which API calls have records
  uint32_t selected_runtime_apis = 0;
  uint32_t selected_driver_apis = 0;
  HwTraceState hw_trace = HwTraceState::kNotAsked;
  std::string hw_trace_detail;
  // Activity buffers CUPTI handed over at exit too late to read before its
  // teardown, which the capture left unread: their records are missing.
  uint32_t buffers_unread_at_exit = 0;
  std::optional<LaunchCostReport> launch_cost;  // none: not measured (yet)
  // Whether the plan enabled the SYNCHRONIZATION and CUDA_EVENT kinds: the
  // light default does not (on PyTorch they cost more than every other kind
  // together), so its syncs and stream-wait edges are not known rather than 0.
  // True for a trace that lists no kinds (written before the list was).
  bool records_syncs = true;
  bool records_event_records = true;
};

struct KernelClassReport {
  std::string kernel_class;
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t mean_ns = 0;
  double share = 0;  // of the process's kernel time, 0 to 1
};

struct KernelReport {
  std::string name;  // as CUPTI reported it
  std::string kernel_class;
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t mean_ns = 0;
};

// One NCCL function's calls in one process, host time next to kernel time.
struct NcclFunctionGpuReport {
  std::string op;
  uint64_t calls = 0;
  uint64_t linked_calls = 0;
  uint64_t kernels = 0;
  int64_t gpu_time_total_ns = 0;
  std::optional<int64_t> gpu_time_mean_ns;  // per linked call; none without one
  int64_t host_time_total_ns = 0;
  int64_t host_time_mean_ns = 0;  // per call
};

struct NcclLinkageReport {
  uint64_t calls = 0;
  uint64_t grouped_calls = 0;
  uint64_t linked_calls = 0;
  uint64_t linked_kernels = 0;
  uint64_t linked_kernels_without_call = 0;
  uint64_t nccl_kernels = 0;
  uint64_t unlinked_nccl_kernels = 0;
  // Collectives, send/recv and ncclGroupEnd, plus any other function with
  // linked kernels; in NcclFunction order.
  std::vector<NcclFunctionGpuReport> ops;
};

struct StreamEdgeReport {
  uint32_t record_stream = 0;
  uint32_t wait_stream = 0;
  uint64_t count = 0;
};

struct StreamWaitReport {
  uint64_t event_records = 0;
  uint64_t waits = 0;
  uint64_t matched_waits = 0;
  uint64_t distinct_edges = 0;
  std::vector<StreamEdgeReport> top_edges;  // most waits first, at most kTopStreamEdges
};

// A GPU the process could see, by CUDA device ordinal.
struct GpuDeviceReport {
  uint32_t id = 0;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; empty when unknown
  std::string name;
};

struct GpuReport {
  std::optional<GpuCaptureReport> capture;  // none without a GpuCaptureStatus
  uint64_t batches = 0;
  ActivityTotals kernels;
  ActivityTotals memcpy;
  ActivityTotals peer_copies;      // of memcpy, those between two GPUs (PtoP)
  ActivityTotals pageable_copies;  // of memcpy, those from or into pageable host memory
  ActivityTotals pinned_copies;    // of memcpy, those from or into pinned host memory only
  ActivityTotals vprof_kernels;    // vprof's own (collective fingerprints), in no other figure
  ActivityTotals graph_replays;    // recorded whole: their nodes are in no kernel or copy figure
  GraphNodes graph_replay_nodes;   // the kernels, fills and copies they ran, from the node lists
  uint64_t graph_replays_unlisted = 0;  // replays of a graph whose node list was not recorded
  ActivityTotals memset;
  ActivityTotals syncs;
  uint64_t api_calls = 0;
  uint64_t dropped_records = 0;
  int64_t cupti_overhead_ns = 0;
  std::vector<KernelClassReport> kernel_classes;  // most kernel time first
  std::vector<KernelReport> top_kernels;          // most kernel time first, at most kTopKernels
  NcclLinkageReport nccl;
  StreamWaitReport stream_waits;
  std::vector<GpuDeviceReport> devices;  // by id

  // Neither a status nor any GPU record: GPU capture never ran here.
  bool captured() const { return capture || batches > 0; }
};

}  // namespace vprof::reporter
