#include "reporter/render/json/json_page.h"

#include "reporter/base/json_writer.h"
#include "reporter/base/units.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/model/report_figures.h"
#include "reporter/render/json/candidates_json.h"
#include "reporter/render/json/clock_json.h"
#include "reporter/render/json/consistency_json.h"
#include "reporter/render/json/figures_json.h"
#include "reporter/render/json/gpu_json.h"
#include "reporter/render/json/json_keys.h"
#include "reporter/render/json/steps_json.h"
#include "reporter/summary/report_summary.h"

namespace vprof::reporter {

namespace keys = json_keys;

namespace {

std::optional<std::string> UnlessEmpty(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

// Comm ranks as runs ("0-3", "5"): a list as long as the communicator's size
// would make a report of a few traces of a 2^20-rank world gigabytes long.
std::vector<std::string> RangeTexts(const std::vector<RankRange>& ranges) {
  std::vector<std::string> texts;
  texts.reserve(ranges.size());
  for (const RankRange& range : ranges) texts.push_back(RangeText(range));
  return texts;
}

void WriteTimeSource(JsonWriter& json, const TimeSource& time_source) {
  json.Key(keys::report::kTimeSource);
  json.BeginObject();
  json.Field("times", "host_api_calls");
  json.Field("description", kTimesMeasured);
  json.Field(keys::time_source::kClock, time_source.aligned_to_realtime ? "realtime" : "monotonic");
  json.Values("hosts", time_source.hosts);
  json.Field("clock_error_bound_ns", time_source.clock_error_bound_ns);
  json.Field("unaligned_processes", time_source.unaligned_processes);
  json.Objects("far_clocks", time_source.far_clocks, [&](const FarClock& far) {
    json.Field("file", far.file);
    json.Field("rank", far.rank);
    json.Field("from_median_ns", far.from_median_ns);
  });
  WriteClockCheckJson(json, time_source);
  json.EndObject();
}

void WriteProcess(JsonWriter& json, const ProcessReport& process) {
  json.BeginObject();
  json.Field(kFileKey, process.file);
  json.Field("host", process.host);
  json.Field("pid", process.pid);
  json.Field(kRankKey, process.rank);
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
  json.Field("missing_packets", process.missing_packets);
  json.Field("clock_offset_ns", process.clock_offset_ns);
  json.Field("clock_spread_ns", process.clock_samples.spread_ns());
  json.Field("clock_samples", process.clock_samples.count);
  WriteGpuJson(json, process.gpu);
  WriteNcclPluginJson(json, process.nccl_plugin);
  json.EndObject();
}

void WriteOp(JsonWriter& json, const OpReport& op) {
  json.BeginObject();
  json.Field(keys::op::kOp, op.op);
  json.Key(keys::op::kSizeBucket);
  json.BeginObject();
  json.Field(keys::op::kBucketLabel, op.bucket.Label());
  json.Field("min_bytes", op.bucket.min_bytes());
  json.Field("max_bytes", op.bucket.max_bytes());
  json.EndObject();
  json.Field(keys::op::kCount, op.count);
  json.Field(keys::op::kTotalTimeNs, op.total_time_ns);
  json.Field("mean_time_ns", op.mean_time_ns);
  json.Field(keys::op::kTotalBytes, op.total_bytes);
  json.Field(keys::op::kBusFactor, op.bus_factor);
  json.Field("algbw_gbps", op.algbw_gbps);
  json.Field("busbw_gbps", op.busbw_gbps);
  json.Field(keys::op::kArrivalSkewMeanNs, op.mean_arrival_skew_ns);
  json.Field(keys::op::kArrivalSkewMaxNs, op.max_arrival_skew_ns);
  json.Field("exit_skew_mean_ns", op.mean_exit_skew_ns);
  json.Field("exit_skew_max_ns", op.max_exit_skew_ns);
  json.Key(keys::op::kMostOftenLast);
  json.BeginObject();
  json.Field(keys::op::kLastRank, op.most_often_last_rank);
  json.Field(keys::op::kLastTimes, op.most_often_last_times);
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
  json.Field(keys::communicator::kCommId, FormatHexId(comm.comm_id));
  json.Field(keys::communicator::kSize, comm.size);
  json.Values("ranks_seen", RangeTexts(RankRanges(comm.ranks_seen)));
  json.Array("members", comm.members,
             [&](const CommMemberReport& member) { WriteMember(json, member); });
  json.Field("created_by", UnlessEmpty(comm.created_by));
  json.Field("parent_comm_id", comm.parent_comm_id == 0
                                   ? std::nullopt
                                   : std::optional<std::string>(FormatHexId(comm.parent_comm_id)));
  json.Objects(
      "roles", comm.roles,
      [&](const CommRoleReport& role) {
        json.Field("role", role.role);
        json.Field("evidence", role.evidence);
      },
      JsonWriter::Layout::kOneLine);
  json.Objects("lifecycle", comm.lifecycle, [&](const LifecycleReport& call) {
    json.Field("function", call.function);
    json.Field("calls", call.calls);
    json.Field("total_ns", call.total_ns);
    json.Field("max_ns", call.max_ns);
  });
  json.Array(keys::communicator::kOps, comm.ops, [&](const OpReport& op) { WriteOp(json, op); });
  json.Objects("incomplete", comm.incomplete, [&](const IncompleteReport& run) {
    json.Field("op", run.op);
    json.Field("first_seq", run.first_seq);
    json.Field("last_seq", run.last_seq);
    json.Field("count", run.count);
    json.Field("expected_ranks", run.expected_ranks);
    json.Values("seen_comm_ranks", RangeTexts(RankRanges(run.seen_comm_ranks)));
    json.Values("missing_comm_ranks", RangeTexts(run.missing_comm_ranks));
  });
  json.EndObject();
}

void WriteRank(JsonWriter& json, const RankReport& rank) {
  json.BeginObject();
  WriteFigures<RankReport>(json, rank, kRankFigures);
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
  json.Objects("lines", summary.lines, [&](const SummaryLine& line) {
    json.Field("label", line.label);
    json.Field("text", line.text);
    json.Field("section", line.section_id);
  });
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
  WriteFigures<ProcessPhasesReport>(json, process, kProcessPhasesFigures);
  json.Objects(keys::process_phases::kPhases, process.phases, [&](const PhaseReport& phase) {
    WriteFigures<PhaseReport>(json, phase, kPhaseFigures);
  });
  json.EndObject();
}

}  // namespace

void WriteJsonReport(const Report& report, std::ostream& out) {
  JsonWriter json(out);
  json.BeginObject();
  json.Field(keys::report::kReportVersion, kJsonReportVersion);
  json.Field("directory", report.directory);
  json.Field(keys::report::kAllInputsWhole, report.all_inputs_whole());
  WriteSummary(json, report);
  WriteTimeSource(json, report.time_source);
  json.Array(keys::report::kProcesses, report.processes,
             [&](const ProcessReport& process) { WriteProcess(json, process); });
  json.Array(keys::report::kCommunicators, report.communicators,
             [&](const CommunicatorReport& comm) { WriteCommunicator(json, comm); });
  json.Array(keys::report::kRanks, report.ranks,
             [&](const RankReport& rank) { WriteRank(json, rank); });
  json.Array(keys::report::kPhases, report.phases,
             [&](const ProcessPhasesReport& process) { WriteProcessPhases(json, process); });
  WriteCoverageJson(json, report.coverage);
  WriteConsistencyJson(json, report.consistency);
  WriteStepsJson(json, report);
  WriteCandidatesJson(json, report);
  json.EndObject();
  out << '\n';
}

}  // namespace vprof::reporter
