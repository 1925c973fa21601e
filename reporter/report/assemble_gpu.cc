#include "reporter/report/assemble_gpu.h"

#include <algorithm>
#include <tuple>

#include "reporter/base/mean_ns.h"
#include "reporter/gpu/api_records.h"
#include "reporter/gpu/kernel_class.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {
namespace {

GpuCaptureState CaptureStateOf(vprof::trace::GpuCaptureState state) {
  switch (state) {
    case vprof::trace::GPU_CAPTURE_ACTIVE:
      return GpuCaptureState::kActive;
    case vprof::trace::GPU_CAPTURE_UNAVAILABLE:
      return GpuCaptureState::kUnavailable;
    case vprof::trace::GPU_CAPTURE_SUBSCRIBER_CONFLICT:
      return GpuCaptureState::kSubscriberConflict;
    case vprof::trace::GPU_CAPTURE_FAILED:
      return GpuCaptureState::kFailed;
    default:
      return GpuCaptureState::kUnspecified;
  }
}

HwTraceState HwTraceOf(vprof::trace::HwTrace hw_trace) {
  switch (hw_trace) {
    case vprof::trace::HW_TRACE_ON:
      return HwTraceState::kOn;
    case vprof::trace::HW_TRACE_NOT_SUPPORTED:
      return HwTraceState::kNotSupported;
    case vprof::trace::HW_TRACE_UNAVAILABLE:
      return HwTraceState::kUnavailable;
    default:
      return HwTraceState::kNotAsked;
  }
}

bool EnablesKind(const vprof::trace::GpuCaptureStatus& status, std::string_view kind) {
  if (status.activity_kinds().empty()) return true;
  for (const std::string& enabled : status.activity_kinds()) {
    if (enabled == kind) return true;
  }
  return false;
}

GpuCaptureReport ToCaptureReport(const vprof::trace::GpuCaptureStatus& status) {
  GpuCaptureReport capture;
  capture.state = CaptureStateOf(status.state());
  capture.detail = status.detail();
  capture.cupti_path = status.cupti_path();
  capture.cupti_version = status.cupti_version();
  capture.timestamp_source = status.timestamp_source();
  capture.cuda_injection_found = status.cuda_injection_found();
  capture.mode = status.capture_mode();
  capture.api_records = ApiRecordsOf(status);
  capture.selected_runtime_apis = status.selected_runtime_apis();
  capture.selected_driver_apis = status.selected_driver_apis();
  capture.hw_trace = HwTraceOf(status.hw_trace());
  capture.hw_trace_detail = status.hw_trace_detail();
  capture.buffers_unread_at_exit = status.buffers_unread_at_exit();
  if (status.has_launch_cost()) capture.launch_cost = LaunchCostReportOf(status.launch_cost());
  capture.records_syncs = EnablesKind(status, "SYNCHRONIZATION");
  capture.records_event_records = EnablesKind(status, "CUDA_EVENT");
  return capture;
}

// Most time first, then by name; the first `keep`.
template <typename Row>
void KeepMostTime(std::vector<Row>& rows, size_t keep, std::string Row::*name) {
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    return std::tie(b.total_ns, a.*name) < std::tie(a.total_ns, b.*name);
  });
  if (rows.size() > keep) rows.resize(keep);
}

std::vector<KernelClassReport> KernelClasses(const GpuRecord& record) {
  std::map<std::string_view, ActivityTotals> classes;
  for (const auto& [name, kernel] : record.kernels_by_name) {
    classes[KernelClassOf(name)].Merge(kernel);
  }
  std::vector<KernelClassReport> rows;
  for (const auto& [kernel_class, totals] : classes) {
    const double share =
        record.kernels.total_ns == 0
            ? 0.0
            : static_cast<double>(totals.total_ns) / static_cast<double>(record.kernels.total_ns);
    rows.push_back({std::string(kernel_class), totals.count, totals.total_ns,
                    MeanNs(totals.total_ns, totals.count), share});
  }
  KeepMostTime(rows, rows.size(), &KernelClassReport::kernel_class);
  return rows;
}

std::vector<KernelReport> TopKernels(const GpuRecord& record) {
  std::vector<KernelReport> rows;
  for (const auto& [name, kernel] : record.kernels_by_name) {
    rows.push_back({name, std::string(KernelClassOf(name)), kernel.count, kernel.total_ns,
                    MeanNs(kernel.total_ns, kernel.count)});
  }
  KeepMostTime(rows, kTopKernels, &KernelReport::name);
  return rows;
}

// Functions that launch kernels (collectives, send/recv, ncclGroupEnd) always;
// any other only when kernels were linked to it.
bool ShowsInLinkage(NcclFunction function, const NcclFunctionGpuTime& time) {
  const FunctionRole role = RoleOf(function);
  return role == FunctionRole::kCollective || role == FunctionRole::kPointToPoint ||
         function == NcclFunction::kGroupEnd || time.linked.kernels > 0;
}

NcclLinkageReport ToLinkageReport(const NcclLinkage& linkage) {
  NcclLinkageReport report{linkage.calls,
                           linkage.grouped_calls,
                           linkage.linked_calls,
                           linkage.linked_kernels,
                           linkage.linked_kernels_without_call,
                           linkage.nccl_kernels,
                           linkage.unlinked_nccl_kernels,
                           {}};
  for (const auto& [function, time] : linkage.functions) {
    if (!ShowsInLinkage(function, time)) continue;
    const LinkedGpuTime& linked = time.linked;
    report.ops.push_back({std::string(NcclFunctionName(function)), time.calls, linked.linked_calls,
                          linked.kernels, linked.gpu_ns,
                          linked.linked_calls == 0
                              ? std::nullopt
                              : std::optional<int64_t>(MeanNs(linked.gpu_ns, linked.linked_calls)),
                          time.host_ns, MeanNs(time.host_ns, time.calls)});
  }
  return report;
}

StreamWaitReport ToStreamWaitReport(const StreamWaits& waits) {
  StreamWaitReport report{
      waits.event_records, waits.waits, waits.matched_waits, waits.edges.size(), {}};
  for (const auto& [streams, count] : waits.edges) {
    report.top_edges.push_back({streams.first, streams.second, count});
  }
  // Most waits first; the edges are already in stream order for ties.
  std::stable_sort(
      report.top_edges.begin(), report.top_edges.end(),
      [](const StreamEdgeReport& a, const StreamEdgeReport& b) { return a.count > b.count; });
  if (report.top_edges.size() > kTopStreamEdges) report.top_edges.resize(kTopStreamEdges);
  return report;
}

}  // namespace

GpuReport ToGpuReport(const GpuRecord& record) {
  GpuReport report;
  if (record.capture) report.capture = ToCaptureReport(*record.capture);
  report.batches = record.batches;
  report.kernels = record.kernels;
  report.memcpy = record.memcpy;
  report.peer_copies = record.peer_copies;
  report.pageable_copies = record.pageable_copies;
  report.pinned_copies = record.pinned_copies;
  report.vprof_kernels = record.vprof_kernels;
  report.graph_replays = record.graph_replays;
  report.graph_replay_nodes = record.graph_replay_nodes;
  report.graph_replays_unlisted = record.graph_replays_unlisted;
  report.memset = record.memset;
  report.syncs = record.syncs;
  report.api_calls = record.api_calls;
  report.dropped_records = record.dropped_records;
  report.cupti_overhead_ns = record.cupti_overhead_ns;
  report.kernel_classes = KernelClasses(record);
  report.top_kernels = TopKernels(record);
  report.nccl = ToLinkageReport(record.nccl);
  report.stream_waits = ToStreamWaitReport(record.stream_waits);
  for (const auto& [id, device] : record.devices) {
    report.devices.push_back({id, device.uuid, device.name});
  }
  return report;
}

std::map<OpKey, LinkedGpuTime> SumCollectiveGpuTime(const std::vector<ProcessRecord>& records) {
  std::map<OpKey, LinkedGpuTime> sum;
  for (const ProcessRecord& record : records) {
    for (const auto& [key, time] : record.gpu.nccl.collectives) sum[key].Merge(time);
  }
  return sum;
}

void AddGpuTime(const std::map<OpKey, LinkedGpuTime>& gpu_time, const OpKey& key, OpReport& op) {
  const auto found = gpu_time.find(key);
  if (found == gpu_time.end() || found->second.linked_calls == 0) return;
  op.gpu_linked_calls = found->second.linked_calls;
  op.gpu_time_total_ns = found->second.gpu_ns;
  op.gpu_time_mean_ns = MeanNs(found->second.gpu_ns, found->second.linked_calls);
  if (op.count > 0 && *op.gpu_time_mean_ns > 0) {
    const double bytes_per_call =
        static_cast<double>(op.total_bytes) / static_cast<double>(op.count);
    op.gpu_busbw_gbps = bytes_per_call / static_cast<double>(*op.gpu_time_mean_ns) * op.bus_factor;
  }
}

}  // namespace vprof::reporter
