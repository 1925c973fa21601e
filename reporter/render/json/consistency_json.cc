#include "reporter/render/json/consistency_json.h"

#include "reporter/base/units.h"
#include "reporter/render/json/json_keys.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

namespace keys = json_keys;

namespace {

std::optional<std::string> UnlessEmpty(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

void WriteTotals(JsonWriter& json, std::string_view key, const ActivityTotals& totals) {
  json.Key(key);
  json.BeginObject();
  json.Field("count", totals.count);
  json.Field("total_ns", totals.total_ns);
  json.EndObject();
}

void WriteAlgorithms(JsonWriter& json, std::string_view key,
                     const std::map<NcclAlgorithmUse, uint64_t>& algorithms) {
  json.Objects(key, algorithms, [&](const auto& row) {
    const auto& [use, count] = row;
    json.Field("func", use.func);
    json.Field("algo", use.algo);
    json.Field("proto", use.proto);
    json.Field("channels", use.channels);
    json.Field("count", count);
  });
}

void WriteContext(JsonWriter& json, uint64_t context_id, const NcclPluginContext& context) {
  json.BeginObject();
  json.Field("context_id", context_id);
  json.Field("described", context.described);
  json.Field("comm_hash", FormatHexId(context.comm_hash));
  json.Field("name", UnlessEmpty(context.name));
  json.Field("nnodes", context.nnodes);
  json.Field("nranks", context.nranks);
  json.Field("rank", context.rank);
  json.Field("init_ns", context.init_ns);
  json.Field("finalize_ns",
             context.finalize_ns == 0 ? std::nullopt : std::optional(context.finalize_ns));
  json.Objects("ops", context.ops, [&](const auto& row) {
    const auto& [func, counts] = row;
    json.Field("func", func);
    json.Field("coll", counts.coll);
    json.Field("p2p", counts.p2p);
  });
  json.EndObject();
}

// A parsed JSON value (the contract) written through the report's writer.
void WriteValue(JsonWriter& json, const JsonNode& value) {
  switch (value.type()) {
    case JsonNode::Type::kNull:
      json.Null();
      return;
    case JsonNode::Type::kBool:
      json.Bool(value.boolean());
      return;
    case JsonNode::Type::kNumber:
      value.integer() ? json.Int(*value.integer()) : json.Double(value.number());
      return;
    case JsonNode::Type::kString:
      json.String(value.text());
      return;
    case JsonNode::Type::kArray:
      json.BeginArray();
      for (const JsonNode& element : value.array()) WriteValue(json, element);
      json.EndArray();
      return;
    case JsonNode::Type::kObject:
      json.BeginObject();
      for (const auto& [key, member] : value.object()) {
        json.Key(key);
        WriteValue(json, member);
      }
      json.EndObject();
      return;
  }
}

void WriteCoverageProcess(JsonWriter& json, const CoverageProcess& row) {
  json.BeginObject();
  json.Field("file", row.file);
  json.Field("rank", row.rank);
  json.Field("wrapper_collectives", row.wrapper_collectives);
  json.Field("wrapper_one_rank_collectives", row.wrapper_one_rank_collectives);
  json.Field("wrapper_p2p", row.wrapper_p2p);
  json.Field("wrapper_p2p_collectives", row.wrapper_p2p_collectives);
  json.Field("plugin_attached", row.plugin_attached);
  json.Field("plugin_version", row.plugin_version);
  json.Field("plugin_collectives", row.plugin_collectives);
  json.Field("plugin_p2p", row.plugin_p2p);
  json.Field("plugin_graph_captured", row.plugin_graph_captured);
  json.Field("gpu_captured", row.gpu_captured);
  json.Field("nccl_kernels", row.nccl_kernels);
  json.Field("nccl_graph_kernels", row.nccl_graph_kernels);
  WriteTotals(json, "custom_allreduce_kernels", row.custom_allreduce_kernels);
  json.Objects("ipc_calls", row.ipc_calls, [&](const auto& call) {
    const auto& [api, totals] = call;
    json.Field("api", api);
    json.Field("count", totals.count);
    json.Field("total_ns", totals.total_ns);
  });
  json.Key("peer_copies");
  json.BeginObject();
  json.Field("count", row.peer_copies.count);
  json.Field("bytes", row.peer_copies.bytes);
  json.Field("total_ns", row.peer_copies.total_ns);
  json.EndObject();
  json.Key("dropped");
  json.BeginObject();
  json.Field("wrapper_events", row.dropped_wrapper_events);
  json.Field("plugin_events", row.dropped_plugin_events);
  json.Field("gpu_records", row.dropped_gpu_records);
  json.EndObject();
  json.EndObject();
}

void WriteGap(JsonWriter& json, const CoverageGap& gap) {
  json.BeginObject();
  json.Field("kind", gap.kind);
  json.Field("file", UnlessEmpty(gap.file));
  json.Field("rank", gap.rank);
  json.Field("comm_id", UnlessEmpty(gap.comm_id));
  json.Field("comm_id_source", UnlessEmpty(gap.comm_id_source));
  json.Field("comm_name", UnlessEmpty(gap.comm_name));
  json.Field("detail", gap.detail);
  json.Values("causes", gap.causes);
  json.EndObject();
}

void WriteRequested(JsonWriter& json, const ConsistencyReport& report) {
  json.Key(keys::consistency::kRequested);
  json.BeginObject();
  json.Field(keys::consistency::kFingerprint, report.requested_fingerprint);
  json.Objects("nccl_env", report.requested_env, [&](const RequestedSetting& setting) {
    json.Field("name", setting.name);
    json.Values("values", setting.values);
    json.Field("processes_set", setting.processes_set);
    json.Field("processes_unset", setting.processes_unset);
  });
  json.Key("contract");
  if (report.contract) {
    WriteValue(json, *report.contract);
  } else {
    json.Null();
  }
  json.EndObject();
}

void WriteActual(JsonWriter& json, const ConsistencyReport& report) {
  json.Key(keys::consistency::kActual);
  json.BeginObject();
  json.Field(keys::consistency::kFingerprint, report.actual_fingerprint);
  json.Field("communication_processes", report.communication_processes);
  json.Field("plugin_processes", report.plugin_processes);
  WriteAlgorithms(json, "nccl", report.actual_algorithms);
  WriteTotals(json, "custom_allreduce_kernels", report.custom_allreduce_kernels);
  json.Objects(
      "collective_shapes", report.collective_shapes,
      [&](const CollectiveShapeReport& shape) {
        json.Field("function", shape.function);
        json.Field("datatype", shape.datatype);
        json.Field("red_op", shape.red_op);
        json.Field("count", shape.count);
        json.Field("comm_size", shape.comm_size);
        json.Values("ranks", shape.ranks);
        json.Field("unranked_processes", shape.unranked_processes);
        json.Field("calls", shape.calls);
      },
      JsonWriter::Layout::kOneLine);
  json.Field("collective_calls_left_out", report.collective_calls_left_out);
  json.Objects(
      "placement", report.placement,
      [&](const RankPlacement& row) {
        json.Field("rank", row.rank);
        json.Field("file", row.file);
        json.Field("host", row.host);
        json.Field("cuda_device",
                   row.cuda_device < 0 ? std::nullopt : std::optional<int32_t>(row.cuda_device));
        json.Field("gpu_uuid", row.gpu_uuid);
      },
      JsonWriter::Layout::kOneLine);
  json.EndObject();
}

void WriteMismatch(JsonWriter& json, const ConsistencyMismatch& mismatch) {
  json.BeginObject();
  json.Field("axis", mismatch.axis);
  json.Field("kind", mismatch.kind);
  json.Field("source", mismatch.source);
  json.Field("requested", mismatch.requested);
  json.Field("actual", mismatch.actual);
  json.Field("count", mismatch.count);
  json.Field("processes", mismatch.processes);
  json.Field("violation", mismatch.violation);
  json.EndObject();
}

}  // namespace

void WriteNcclPluginJson(JsonWriter& json, const NcclPluginRecord& plugin) {
  json.Key("nccl_plugin");
  json.BeginObject();
  json.Key("status");
  if (plugin.injection) {
    const vprof::trace::InjectionStatus& status = *plugin.injection;
    json.BeginObject();
    json.Field("found", status.found());
    json.Field("claimed", status.claimed());
    json.Field("attached", status.attached());
    json.Field("version", status.version());
    json.Field("detail", status.detail());
    json.EndObject();
  } else {
    json.Null();
  }
  json.Field("attached", plugin.attached());
  json.Field("batches", plugin.batches);
  json.Field("dropped_events", plugin.dropped);
  json.Field("coll_events", plugin.coll_events);
  json.Field("p2p_events", plugin.p2p_events);
  json.Field("graph_captured_events", plugin.graph_captured_events);
  json.Array("contexts", plugin.contexts, [&](const auto& row) {
    const auto& [id, context] = row;
    WriteContext(json, id, context);
  });
  WriteAlgorithms(json, "algorithms", plugin.algorithms);
  json.EndObject();
}

void WriteCoverageJson(JsonWriter& json, const std::optional<CoverageReport>& coverage) {
  json.Key("coverage");
  if (!coverage) return json.Null();
  json.BeginObject();
  json.Array("processes", coverage->processes,
             [&](const CoverageProcess& row) { WriteCoverageProcess(json, row); });
  json.Array("gaps", coverage->gaps, [&](const CoverageGap& gap) { WriteGap(json, gap); });
  json.EndObject();
}

void WriteConsistencyJson(JsonWriter& json, const std::optional<ConsistencyReport>& consistency) {
  json.Key(keys::report::kConsistency);
  if (!consistency) return json.Null();
  json.BeginObject();
  json.Field(keys::consistency::kMode, ConsistencyModeName(consistency->mode));
  json.Field("mode_source", consistency->mode_source);
  json.Field("contract_file", UnlessEmpty(consistency->contract_file));
  json.Field(keys::consistency::kFailed, consistency->failed());
  json.Field(keys::consistency::kViolations, consistency->violations);
  WriteRequested(json, *consistency);
  WriteActual(json, *consistency);
  json.Array("mismatches", consistency->mismatches,
             [&](const ConsistencyMismatch& mismatch) { WriteMismatch(json, mismatch); });
  json.EndObject();
}

}  // namespace vprof::reporter
