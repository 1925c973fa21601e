#include "reporter/render/json/gpu_json.h"

#include "reporter/model/report_figures.h"
#include "reporter/render/json/figures_json.h"
#include "reporter/render/json/json_keys.h"

namespace vprof::reporter {

namespace keys = json_keys;

namespace {

void WriteCapture(JsonWriter& json, const std::optional<GpuCaptureReport>& capture) {
  if (!capture) {
    json.Key("capture");
    json.Null();
    return;
  }
  json.Object("capture", [&] {
    json.Field("state", GpuCaptureStateName(capture->state));
    json.Field("detail", capture->detail);
    json.Field("cupti_path", capture->cupti_path);
    json.Field("cupti_version", capture->cupti_version);
    json.Field("timestamp_source", capture->timestamp_source);
    json.Field("cuda_injection_found", capture->cuda_injection_found);
    json.Field("mode", capture->mode);
    json.Field("api_records", ApiRecordsName(capture->api_records));
    json.Field("selected_runtime_apis", capture->selected_runtime_apis);
    json.Field("selected_driver_apis", capture->selected_driver_apis);
    json.Field("hw_trace", HwTraceStateName(capture->hw_trace));
    json.Field("hw_trace_detail", capture->hw_trace_detail);
    if (capture->buffers_unread_at_exit > 0) {
      json.Field("buffers_unread_at_exit", capture->buffers_unread_at_exit);
    }
    if (!capture->launch_cost) {
      json.Key("launch_cost");
      return json.Null();
    }
    const LaunchCostReport& cost = *capture->launch_cost;
    json.Object("launch_cost", [&] {
      json.Field("rounds", cost.rounds);
      json.Field("launches_per_round", cost.launches_per_round);
      json.Field("bare_launch_ns", cost.bare_launch_ns);
      json.Field("traced_launch_ns", cost.traced_launch_ns);
      json.Field("failure", cost.failure);
      json.Field("bare_kernel_gpu_ns", cost.bare_kernel_gpu_ns);
      json.Field("traced_kernel_gpu_ns", cost.traced_kernel_gpu_ns);
      json.Field("gpu_failure", cost.gpu_failure);
    });
  });
}

// Kernels and syncs move no bytes, so they have no "bytes" key.
void WriteTotals(JsonWriter& json, std::string_view key, const ActivityTotals& totals,
                 bool with_bytes) {
  json.Object(key, [&] {
    json.Field("count", totals.count);
    if (with_bytes) json.Field("bytes", totals.bytes);
    json.Field("total_ns", totals.total_ns);
  });
}

void WriteLinkage(JsonWriter& json, const NcclLinkageReport& nccl) {
  json.Object("nccl_linkage", [&] {
    json.Field("calls", nccl.calls);
    json.Field("grouped_calls", nccl.grouped_calls);
    json.Field("linked_calls", nccl.linked_calls);
    json.Field("linked_kernels", nccl.linked_kernels);
    json.Field("linked_kernels_without_call", nccl.linked_kernels_without_call);
    json.Field("nccl_kernels", nccl.nccl_kernels);
    json.Field("unlinked_nccl_kernels", nccl.unlinked_nccl_kernels);
    json.Objects("ops", nccl.ops, [&](const NcclFunctionGpuReport& op) {
      json.Field("op", op.op);
      json.Field("calls", op.calls);
      json.Field("linked_calls", op.linked_calls);
      json.Field("kernels", op.kernels);
      json.Field("gpu_time_total_ns", op.gpu_time_total_ns);
      json.Field("gpu_time_mean_ns", op.gpu_time_mean_ns);
      json.Field("host_time_total_ns", op.host_time_total_ns);
      json.Field("host_time_mean_ns", op.host_time_mean_ns);
    });
  });
}

// null when the capture plan did not record event records and waits.
void WriteStreamWaits(JsonWriter& json, const GpuReport& gpu) {
  if (gpu.capture && (!gpu.capture->records_event_records || !gpu.capture->records_syncs)) {
    json.Key("stream_waits");
    return json.Null();
  }
  const StreamWaitReport& waits = gpu.stream_waits;
  json.Object("stream_waits", [&] {
    json.Field("event_records", waits.event_records);
    json.Field("waits", waits.waits);
    json.Field("matched_waits", waits.matched_waits);
    json.Field("distinct_edges", waits.distinct_edges);
    json.Objects("edges", waits.top_edges, [&](const StreamEdgeReport& edge) {
      json.Field("record_stream", edge.record_stream);
      json.Field("wait_stream", edge.wait_stream);
      json.Field("count", edge.count);
    });
  });
}

}  // namespace

void WriteGpuJson(JsonWriter& json, const GpuReport& gpu) {
  json.Object(keys::process::kGpu, [&] {
    WriteCapture(json, gpu.capture);
    json.Field("batches", gpu.batches);
    WriteTotals(json, "kernels", gpu.kernels, false);
    WriteTotals(json, "memcpy", gpu.memcpy, true);
    WriteTotals(json, "peer_copies", gpu.peer_copies, true);
    WriteTotals(json, "pageable_copies", gpu.pageable_copies, true);
    WriteTotals(json, "pinned_copies", gpu.pinned_copies, true);
    if (gpu.vprof_kernels.count) WriteTotals(json, "vprof_kernels", gpu.vprof_kernels, false);
    if (gpu.graph_replays.count) {
      json.Object("graph_replays", [&] {
        json.Field("count", gpu.graph_replays.count);
        json.Field("total_ns", gpu.graph_replays.total_ns);
        json.Field("kernels", gpu.graph_replay_nodes.kernels);
        json.Field("memsets", gpu.graph_replay_nodes.memsets);
        json.Field("memcpys", gpu.graph_replay_nodes.memcpys);
        json.Field("unlisted", gpu.graph_replays_unlisted);
      });
    }
    WriteTotals(json, "memset", gpu.memset, true);
    if (gpu.capture && !gpu.capture->records_syncs) {
      json.Key("syncs");
      json.Null();
    } else {
      WriteTotals(json, "syncs", gpu.syncs, false);
    }
    json.Field("api_calls", gpu.api_calls);
    json.Field("dropped_records", gpu.dropped_records);
    json.Field("cupti_overhead_ns", gpu.cupti_overhead_ns);
    json.Objects(keys::gpu::kKernelClasses, gpu.kernel_classes, [&](const KernelClassReport& row) {
      WriteFigures<KernelClassReport>(json, row, kKernelClassFigures);
    });
    json.Objects("top_kernels", gpu.top_kernels, [&](const KernelReport& row) {
      json.Field("name", row.name);
      json.Field("class", row.kernel_class);
      json.Field("count", row.count);
      json.Field("total_ns", row.total_ns);
      json.Field("mean_ns", row.mean_ns);
    });
    WriteLinkage(json, gpu.nccl);
    WriteStreamWaits(json, gpu);
    json.Objects("devices", gpu.devices, [&](const GpuDeviceReport& row) {
      json.Field("id", row.id);
      json.Field("uuid", row.uuid.empty() ? std::nullopt : std::optional<std::string>(row.uuid));
      json.Field("name", row.name);
    });
  });
}

}  // namespace vprof::reporter
