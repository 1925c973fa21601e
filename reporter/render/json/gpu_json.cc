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
    WriteFigures<GpuCaptureReport>(json, *capture, kGpuCaptureFigures);
    if (capture->buffers_unread_at_exit > 0) {
      json.Field("buffers_unread_at_exit", capture->buffers_unread_at_exit);
    }
    if (!capture->launch_cost) {
      json.Key("launch_cost");
      return json.Null();
    }
    const LaunchCostReport& cost = *capture->launch_cost;
    json.Object("launch_cost",
                [&] { WriteFigures<LaunchCostReport>(json, cost, kLaunchCostFigures); });
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
    WriteFigures<NcclLinkageReport>(json, nccl, kNcclLinkageFigures);
    json.Objects("ops", nccl.ops, [&](const NcclFunctionGpuReport& op) {
      WriteFigures<NcclFunctionGpuReport>(json, op, kNcclFunctionGpuFigures);
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
    WriteFigures<StreamWaitReport>(json, waits, kStreamWaitFigures);
    json.Objects("edges", waits.top_edges, [&](const StreamEdgeReport& edge) {
      WriteFigures<StreamEdgeReport>(json, edge, kStreamEdgeFigures);
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
      WriteFigures<KernelReport>(json, row, kKernelFigures);
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
