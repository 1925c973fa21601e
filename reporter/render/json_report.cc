#include "reporter/render/json_report.h"

#include "reporter/base/json_writer.h"
#include "reporter/base/units.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/render/candidate_json_report.h"
#include "reporter/render/clock_json_report.h"
#include "reporter/render/consistency_json_report.h"
#include "reporter/render/gpu_json_report.h"
#include "reporter/render/report_summary.h"
#include "reporter/render/step_json_report.h"

namespace vprof::reporter {
namespace {

std::optional<std::string> UnlessEmpty(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

template <typename T>
void WriteArray(JsonWriter& json, std::string_view key, const std::vector<T>& values) {
  json.Key(key);
  json.BeginArray();
  for (const T& value : values) json.Uint(value);
  json.EndArray();
}

void WriteTimeSource(JsonWriter& json, const TimeSource& time_source) {
  json.Key("time_source");
  json.BeginObject();
  json.Field("times", "host_api_calls");
  json.Field("description", kTimesMeasured);
  json.Field("clock", time_source.aligned_to_realtime ? "realtime" : "monotonic");
  json.Key("hosts");
  json.BeginArray();
  for (const std::string& host : time_source.hosts) json.String(host);
  json.EndArray();
  json.Field("clock_error_bound_ns", time_source.clock_error_bound_ns);
  json.Field("unaligned_processes", time_source.unaligned_processes);
  json.Key("far_clocks");
  json.BeginArray();
  for (const FarClock& far : time_source.far_clocks) {
    json.BeginObject();
    json.Field("file", far.file);
    json.Field("rank", far.rank);
    json.Field("from_median_ns", far.from_median_ns);
    json.EndObject();
  }
  json.EndArray();
  WriteClockCheckJson(json, time_source);
  json.EndObject();
}

void WriteProcess(JsonWriter& json, const ProcessReport& process) {
  json.BeginObject();
  json.Field("file", process.file);
  json.Field("host", process.host);
  json.Field("pid", process.pid);
  json.Field("rank", process.rank);
  json.Field("rank_source", UnlessEmpty(process.rank_source));
  json.Field("is_rank", process.is_rank);
  json.Field("nccl_events", process.nccl_events);
  json.Field("failed_calls", process.failed_calls);
  json.Field("dropped_events", process.dropped_events);
  json.Field("write_errors", process.write_errors);
  json.Field("state", InputStateName(process.state));
  json.Field("whole", process.state == InputState::kWhole);
  json.Field("end_reason", UnlessEmpty(process.end_reason));
  json.Field("signal", process.signal);
  json.Field("problem", UnlessEmpty(process.problem));
  json.Field("unreadable_packets", process.unreadable_packets);
  json.Field("clock_offset_ns", process.clock_offset_ns);
  json.Field("clock_spread_ns", process.clock_samples.spread_ns());
  json.Field("clock_samples", process.clock_samples.count);
  WriteGpuJson(json, process.gpu);
  WriteNcclPluginJson(json, process.nccl_plugin);
  json.EndObject();
}

void WriteOp(JsonWriter& json, const OpReport& op) {
  json.BeginObject();
  json.Field("op", op.op);
  json.Key("size_bucket");
  json.BeginObject();
  json.Field("label", op.bucket.Label());
  json.Field("min_bytes", op.bucket.min_bytes());
  json.Field("max_bytes", op.bucket.max_bytes());
  json.EndObject();
  json.Field("count", op.count);
  json.Field("total_time_ns", op.total_time_ns);
  json.Field("mean_time_ns", op.mean_time_ns);
  json.Field("total_bytes", op.total_bytes);
  json.Field("bus_factor", op.bus_factor);
  json.Field("algbw_gbps", op.algbw_gbps);
  json.Field("busbw_gbps", op.busbw_gbps);
  json.Field("arrival_skew_mean_ns", op.mean_arrival_skew_ns);
  json.Field("arrival_skew_max_ns", op.max_arrival_skew_ns);
  json.Field("exit_skew_mean_ns", op.mean_exit_skew_ns);
  json.Field("exit_skew_max_ns", op.max_exit_skew_ns);
  json.Key("most_often_last");
  json.BeginObject();
  json.Field("rank", op.most_often_last_rank);
  json.Field("times", op.most_often_last_times);
  json.EndObject();
  json.Field("gpu_linked_calls", op.gpu_linked_calls);
  json.Field("gpu_time_total_ns", op.gpu_time_total_ns);
  json.Field("gpu_time_mean_ns", op.gpu_time_mean_ns);
  json.Field("gpu_busbw_gbps", op.gpu_busbw_gbps);
  json.Field("collective_gpu_calls", op.collective_gpu_calls);
  json.Field("collective_gpu_mean_ns", op.collective_gpu_mean_ns);
  json.Field("collective_gpu_median_ns", op.collective_gpu_median_ns);
  json.Field("collective_busbw_gbps", op.collective_busbw_gbps);
  json.EndObject();
}

void WriteMember(JsonWriter& json, const CommMemberReport& member) {
  json.BeginObject();
  json.Field("comm_rank", member.comm_rank);
  json.Field("rank", member.rank);
  json.Field("file", member.file);
  json.Field("host", member.host);
  json.Field("cuda_device",
             member.cuda_device < 0 ? std::nullopt : std::optional<int32_t>(member.cuda_device));
  json.Field("gpu_uuid", UnlessEmpty(member.gpu_uuid));
  json.EndObject();
}

void WriteCommunicator(JsonWriter& json, const CommunicatorReport& comm) {
  json.BeginObject();
  json.Field("comm_id", FormatHexId(comm.comm_id));
  json.Field("size", comm.size);
  WriteArray(json, "ranks_seen", comm.ranks_seen);
  json.Key("members");
  json.BeginArray();
  for (const CommMemberReport& member : comm.members) WriteMember(json, member);
  json.EndArray();
  json.Field("created_by", UnlessEmpty(comm.created_by));
  json.Field("parent_comm_id", comm.parent_comm_id == 0
                                   ? std::nullopt
                                   : std::optional<std::string>(FormatHexId(comm.parent_comm_id)));
  json.Key("lifecycle");
  json.BeginArray();
  for (const LifecycleReport& call : comm.lifecycle) {
    json.BeginObject();
    json.Field("function", call.function);
    json.Field("calls", call.calls);
    json.Field("total_ns", call.total_ns);
    json.Field("max_ns", call.max_ns);
    json.EndObject();
  }
  json.EndArray();
  json.Key("ops");
  json.BeginArray();
  for (const OpReport& op : comm.ops) WriteOp(json, op);
  json.EndArray();
  json.Key("incomplete");
  json.BeginArray();
  for (const IncompleteReport& run : comm.incomplete) {
    json.BeginObject();
    json.Field("op", run.op);
    json.Field("first_seq", run.first_seq);
    json.Field("last_seq", run.last_seq);
    json.Field("count", run.count);
    json.Field("expected_ranks", run.expected_ranks);
    WriteArray(json, "seen_comm_ranks", run.seen_comm_ranks);
    WriteArray(json, "missing_comm_ranks", run.missing_comm_ranks);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

void WriteRank(JsonWriter& json, const RankReport& rank) {
  json.BeginObject();
  json.Field("rank", rank.rank);
  json.Field("file", rank.file);
  json.Field("collectives", rank.collectives);
  json.Field("last_arrivals", rank.last_arrivals);
  json.Field("mean_lateness_ns", rank.mean_lateness_ns);
  json.Field("total_lead_ns", rank.total_lead_ns);
  json.Key("longest_lead");
  if (rank.longest_lead.lead_ns > 0) {
    const LeadExample& lead = rank.longest_lead;
    json.BeginObject();
    json.Field("lead_ns", lead.lead_ns);
    json.Field("enter_ns", lead.enter_ns);
    json.Field("comm_id", FormatHexId(lead.comm_id));
    json.Field("op", NcclFunctionName(lead.op));
    json.Field("size_bytes", lead.size_bytes);
    json.EndObject();
  } else {
    json.Null();
  }
  json.EndObject();
}

void WriteSummary(JsonWriter& json, const Report& report) {
  const ReportSummary summary = SummarizeReport(report);
  json.Key("summary");
  json.BeginObject();
  json.Key("lines");
  json.BeginArray();
  for (const SummaryLine& line : summary.lines) {
    json.BeginObject();
    json.Field("label", line.label);
    json.Field("text", line.text);
    json.Field("section", line.section_id);
    json.EndObject();
  }
  json.EndArray();
  json.Key("step_shares");
  if (summary.shares) {
    const StepShares& s = *summary.shares;
    json.BeginObject();
    json.Field("rank", s.rank);
    json.Field("file", s.file);
    json.Field("slowest_in_steps", s.slowest_in);
    json.Field("window_ns", s.window_ns);
    json.Field("compute_ns", s.compute_ns);
    json.Field("exposed_comm_ns", s.exposed_comm_ns);
    json.Field("copy_ns", s.copy_ns);
    json.Field("idle_host_bound_ns", s.idle_host_bound_ns);
    json.Field("idle_waiting_ns", s.idle_waiting_ns);
    json.Field("overlapped_comm_ns", s.overlapped_comm_ns);
    json.EndObject();
  } else {
    json.Null();
  }
  json.Field("dropped_records", summary.dropped_records);
  json.Field("coverage_gaps", summary.coverage_gaps);
  json.Field("traces_not_whole", summary.traces_not_whole);
  json.EndObject();
}

void WriteProcessPhases(JsonWriter& json, const ProcessPhasesReport& process) {
  json.BeginObject();
  json.Field("rank", process.rank);
  json.Field("file", process.file);
  json.Field("source", process.inferred ? "inferred" : "nvtx");
  json.Field("role", process.role);
  json.Field("role_rule", process.role_rule);
  json.Field("ranges", process.ranges);
  json.Field("span_ns", process.span_ns);
  json.Field("nccl_ranges", process.nccl_ranges);
  json.Field("dropped", process.dropped);
  json.Key("phases");
  json.BeginArray();
  for (const PhaseReport& phase : process.phases) {
    json.BeginObject();
    json.Field("phase", phase.name);
    json.Field("unmatched", phase.unmatched);
    json.Field("source", phase.source);
    json.Field("count", phase.count);
    json.Field("total_ns", phase.total_ns);
    json.Field("mean_ns", phase.mean_ns);
    json.Field("span_share", phase.span_share);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

}  // namespace

void WriteJsonReport(const Report& report, std::ostream& out) {
  JsonWriter json(out);
  json.BeginObject();
  json.Field("report_version", kJsonReportVersion);
  json.Field("directory", report.directory);
  json.Field("all_inputs_whole", report.all_inputs_whole());
  WriteSummary(json, report);
  WriteTimeSource(json, report.time_source);
  json.Key("processes");
  json.BeginArray();
  for (const ProcessReport& process : report.processes) WriteProcess(json, process);
  json.EndArray();
  json.Key("communicators");
  json.BeginArray();
  for (const CommunicatorReport& comm : report.communicators) WriteCommunicator(json, comm);
  json.EndArray();
  json.Key("ranks");
  json.BeginArray();
  for (const RankReport& rank : report.ranks) WriteRank(json, rank);
  json.EndArray();
  json.Key("phases");
  json.BeginArray();
  for (const ProcessPhasesReport& process : report.phases) WriteProcessPhases(json, process);
  json.EndArray();
  WriteCoverageJson(json, report.coverage);
  WriteConsistencyJson(json, report.consistency);
  WriteStepsJson(json, report);
  WriteCandidatesJson(json, report);
  json.EndObject();
  out << '\n';
}

}  // namespace vprof::reporter
