#include "reporter/report/assemble.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "reporter/base/mean_ns.h"
#include "reporter/candidates/rank_candidates.h"
#include "reporter/collectives/bandwidth.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/consistency/coverage.h"
#include "reporter/report/assemble_gpu.h"
#include "reporter/report/assemble_phases.h"
#include "reporter/report/process_rank.h"
#include "reporter/steps/comm_roles.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {
namespace {

std::string EndReasonName(const std::optional<vprof::trace::EndReason>& reason) {
  if (!reason) return "";
  switch (*reason) {
    case vprof::trace::END_REASON_EXIT:
      return "exit";
    case vprof::trace::END_REASON_SIGNAL:
      return "signal";
    case vprof::trace::END_REASON_WINDOW_END:
      return "window_end";
    case vprof::trace::END_REASON_INTERNAL_ERROR:
      return "internal_error";
    case vprof::trace::END_REASON_UNOBSERVED:
      return "unobserved";
    case vprof::trace::END_REASON_WRITES_STALLED:
      return "writes_stalled";
    default:
      return "unspecified";
  }
}

ProcessReport ToProcessReport(const ProcessRecord& record) {
  const ProcessRank rank = ResolveRank(record);
  ProcessReport process;
  process.file = record.file();
  process.host = record.host;
  process.pid = record.pid;
  process.rank = rank.rank;
  process.rank_source = rank.source;
  process.is_rank = IsRankProcess(record);
  process.nccl_events = record.nccl_events;
  process.failed_calls = record.failed_calls;
  process.dropped_events = record.dropped_events;
  process.write_errors = record.write_errors;
  process.state = record.state;
  process.end_reason = EndReasonName(record.end_reason);
  process.signal = record.signal;
  process.problem = record.problem;
  process.unreadable_packets = record.unreadable_packets;
  process.missing_packets = record.missing_packets;
  // A whole file's problem is at most what its capture left out (trace_source.h).
  const bool whole = record.state == InputState::kWhole;
  if (whole && record.end_reason == vprof::trace::END_REASON_UNOBSERVED) {
    AddProblem(
        process.problem,
        "ended unobserved (a fatal signal, _exit or exec, or trace writes at exit slower than "
        "vprof's bound, which its stderr then names): records after its last flush are missing");
  }
  if (whole && record.end_reason == vprof::trace::END_REASON_WRITES_STALLED) {
    AddProblem(process.problem,
               "its trace's writes stalled as it exited (the file system stopped answering), and "
               "vprof stopped writing at its bound: records after the last whole write are "
               "missing");
  }
  process.clock_offset_ns = record.clock_offset_ns;
  process.clock_samples = record.clock_samples;
  process.gpu = ToGpuReport(record.gpu);
  process.nccl_plugin = record.nccl_plugin;
  return process;
}

OpReport ToOpReport(const OpKey& key, const OpStats& stats,
                    const std::vector<ProcessReport>& processes) {
  OpReport op;
  op.op = std::string(NcclFunctionName(key.op));
  op.bucket = key.bucket;
  op.count = stats.count;
  op.total_time_ns = stats.total_time_ns;
  op.mean_time_ns = MeanNs(stats.total_time_ns, stats.count);
  op.total_bytes = stats.total_bytes;
  op.bus_factor = BusFactor(key.op, stats.comm_size);
  op.algbw_gbps = AlgorithmBandwidthGBps(stats.total_bytes, stats.total_time_ns);
  if (op.algbw_gbps) op.busbw_gbps = *op.algbw_gbps * op.bus_factor;
  op.mean_arrival_skew_ns = MeanNs(stats.total_arrival_skew_ns, stats.count);
  op.max_arrival_skew_ns = stats.max_arrival_skew_ns;
  op.mean_exit_skew_ns = MeanNs(stats.total_exit_skew_ns, stats.count);
  op.max_exit_skew_ns = stats.max_exit_skew_ns;
  // Ascending process index with a strict comparison: ties go to the first.
  for (const auto& [process, times] : stats.last_arrivals) {
    if (times > op.most_often_last_times) {
      op.most_often_last_times = times;
      op.most_often_last_rank = processes[process].rank;
    }
  }
  return op;
}

// As runs: a communicator of 2^20 ranks that one trace saw misses a million of them.
std::vector<RankRange> MissingRanks(const PendingCollective& pending) {
  if (!pending.sender_receiver) return AbsentRanks(pending.seen_ranks, pending.comm_size);
  std::vector<uint32_t> pair = {pending.sender_receiver->first, pending.sender_receiver->second};
  std::sort(pair.begin(), pair.end());
  pair.erase(std::unique(pair.begin(), pair.end()), pair.end());
  std::vector<uint32_t> missing;
  std::set_difference(pair.begin(), pair.end(), pending.seen_ranks.begin(),
                      pending.seen_ranks.end(), std::back_inserter(missing));
  return RankRanges(missing);
}

// Whether `next` continues the run that `previous` ended: the following seq,
// seen by the same members of the same pair.
bool ContinuesRun(const PendingCollective& previous, const PendingCollective& next) {
  return next.comm_id == previous.comm_id && next.seq == previous.seq + 1 &&
         next.function == previous.function && next.sender_receiver == previous.sender_receiver &&
         next.seen_ranks == previous.seen_ranks;
}

IncompleteReport StartRun(const PendingCollective& pending) {
  IncompleteReport run;
  run.op = std::string(NcclFunctionName(pending.function));
  run.first_seq = run.last_seq = pending.seq;
  run.count = 1;
  run.expected_ranks = pending.sender_receiver ? 2 : pending.comm_size;
  run.seen_comm_ranks = pending.seen_ranks;
  run.missing_comm_ranks = MissingRanks(pending);
  return run;
}

using CommunicatorMap = std::map<uint64_t, CommunicatorReport>;

// Size, members, creator and parent, as the processes' records saw them.
void AddMemberships(const std::vector<ProcessRecord>& records, CommunicatorMap& communicators) {
  std::map<uint64_t, std::set<uint32_t>> ranks_seen;
  for (const ProcessRecord& record : records) {
    for (const auto& [comm_id, membership] : record.communicators) {
      CommunicatorReport& comm = communicators[comm_id];
      comm.size = std::max(comm.size, membership.nranks);
      if (comm.created_by.empty()) comm.created_by = membership.created_by;
      if (comm.parent_comm_id == 0) comm.parent_comm_id = membership.parent_comm_id;
      ranks_seen[comm_id].insert(membership.rank);
    }
  }
  for (const auto& [comm_id, ranks] : ranks_seen) {
    communicators[comm_id].ranks_seen.assign(ranks.begin(), ranks.end());
  }
}

// Each traced member: its comm rank, global rank, host and GPU; by comm rank
// (then file, for two traces that claim one comm rank).
void AddMembers(const std::vector<ProcessRecord>& records,
                const std::vector<ProcessReport>& processes, CommunicatorMap& communicators) {
  for (size_t i = 0; i < records.size(); ++i) {
    for (const auto& [comm_id, membership] : records[i].communicators) {
      communicators[comm_id].members.push_back(
          {membership.rank, processes[i].rank, processes[i].file, processes[i].host,
           membership.cuda_device, records[i].gpu.UuidOf(membership.cuda_device)});
    }
  }
  for (auto& [comm_id, comm] : communicators) {
    std::sort(comm.members.begin(), comm.members.end(),
              [](const CommMemberReport& a, const CommMemberReport& b) {
                return std::tie(a.comm_rank, a.file) < std::tie(b.comm_rank, b.file);
              });
  }
}

// Creations from the Communicator packets (one per rank that made it),
// teardowns from the events; both in NcclFunction order.
void AddLifecycle(const std::vector<ProcessRecord>& records, const CollectiveStats& stats,
                  CommunicatorMap& communicators) {
  std::map<uint64_t, std::map<NcclFunction, LifecycleStats>> lifecycle;
  for (const ProcessRecord& record : records) {
    for (const auto& [comm_id, membership] : record.communicators) {
      const NcclFunction creator = NcclFunctionFromName(membership.created_by);
      if (RoleOf(creator) == FunctionRole::kCreation) {
        lifecycle[comm_id][creator].Add(membership.create_ns);
      }
    }
  }
  for (const auto& [key, teardown] : stats.teardown()) lifecycle[key.first][key.second] = teardown;
  for (const auto& [comm_id, calls] : lifecycle) {
    for (const auto& [function, call] : calls) {
      communicators[comm_id].lifecycle.push_back(
          {std::string(NcclFunctionName(function)), call.calls, call.total_ns, call.max_ns});
    }
  }
}

// `pending` in CollectiveMatcher::TakePending() order, folded into runs.
void AddIncomplete(const std::vector<PendingCollective>& pending, CommunicatorMap& communicators) {
  for (size_t i = 0; i < pending.size(); ++i) {
    std::vector<IncompleteReport>& runs = communicators[pending[i].comm_id].incomplete;
    if (i > 0 && ContinuesRun(pending[i - 1], pending[i])) {
      runs.back().last_seq = pending[i].seq;
      ++runs.back().count;
    } else {
      runs.push_back(StartRun(pending[i]));
    }
  }
}

std::vector<RankReport> RankReports(const std::vector<ProcessReport>& processes,
                                    const std::vector<ParticipantStats>& participants) {
  std::vector<RankReport> ranks;
  for (size_t i = 0; i < processes.size(); ++i) {
    const ProcessReport& process = processes[i];
    if (!process.is_rank) continue;
    const ParticipantStats& part = participants[i];
    ranks.push_back({process.rank, process.file, part.collectives, part.last_arrivals,
                     MeanNs(part.total_lateness_ns, part.collectives), part.total_lead_ns,
                     part.longest_lead});
  }
  // Ranked processes first, by rank; processes are already in file order.
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankReport& a, const RankReport& b) {
    return std::make_pair(!a.rank, a.rank.value_or(0)) <
           std::make_pair(!b.rank, b.rank.value_or(0));
  });
  return ranks;
}

// Every record's phase-inference input, or none when a record lacks one
// (records from node summaries): inference needs every process's role.
std::vector<InferredPhaseInput> InferredPhaseInputs(const std::vector<ProcessRecord>& records) {
  std::vector<InferredPhaseInput> inputs;
  for (const ProcessRecord& record : records) {
    if (!record.inferred_phase_input) return {};
    inputs.push_back(*record.inferred_phase_input);
  }
  return inputs;
}

}  // namespace

Report AssembleReport(std::string directory, TimeSource time_source,
                      const std::vector<ProcessRecord>& records, const CollectiveStats& stats,
                      const std::vector<PendingCollective>& pending,
                      const ConsistencyOptions& consistency) {
  Report report;
  report.directory = std::move(directory);
  report.time_source = std::move(time_source);
  for (const ProcessRecord& record : records) report.processes.push_back(ToProcessReport(record));

  CommunicatorMap communicators;
  AddMemberships(records, communicators);
  AddMembers(records, report.processes, communicators);
  AddLifecycle(records, stats, communicators);
  const std::map<OpKey, LinkedGpuTime> gpu_time = SumCollectiveGpuTime(records);
  for (const auto& [key, op_stats] : stats.ops()) {
    OpReport& op =
        communicators[key.comm_id].ops.emplace_back(ToOpReport(key, op_stats, report.processes));
    AddGpuTime(gpu_time, key, op);
  }
  AddIncomplete(pending, communicators);
  for (auto& [comm_id, comm] : communicators) {
    comm.comm_id = comm_id;
    report.communicators.push_back(std::move(comm));
  }

  report.ranks = RankReports(report.processes, stats.participants());
  report.phases = PhaseReports(records, report.processes, InferredPhaseInputs(records));
  report.any_nvtx_ranges = std::any_of(records.begin(), records.end(), [](const ProcessRecord& r) {
    return r.nvtx_phases.ranges + r.nvtx_phases.nccl_ranges > 0;
  });
  if (consistency.requested() || AnyPluginStatus(records)) {
    report.coverage = CheckCoverage(records, report.processes, report.communicators);
    report.consistency = CompareRequestedWithActual(records, report.processes, consistency);
  }
  return report;
}

void AddCollectiveGpuTime(const std::map<OpKey, CrossRankTotals>& totals, Report& report) {
  for (CommunicatorReport& comm : report.communicators) {
    for (OpReport& op : comm.ops) {
      const auto row = totals.find(OpKey{comm.comm_id, NcclFunctionFromName(op.op), op.bucket});
      if (row == totals.end() || row->second.collectives == 0 || op.count == 0) continue;
      const CrossRankTotals& time = row->second;
      op.collective_gpu_calls = time.collectives;
      op.collective_gpu_mean_ns = MeanNs(time.total_ns, time.collectives);
      op.collective_gpu_median_ns = time.durations.Median();
      // S of the row's mean collective, over the median cross-rank time.
      const uint64_t mean_size = op.total_bytes / op.count;
      const std::optional<double> algbw =
          AlgorithmBandwidthGBps(mean_size, op.collective_gpu_median_ns.value_or(0));
      if (algbw) op.collective_busbw_gbps = *algbw * op.bus_factor;
    }
  }
}

Report FinishReport(std::string directory, TimeSource time_source,
                    const std::vector<ProcessRecord>& records, const CollectiveStats& stats,
                    const std::vector<PendingCollective>& pending,
                    const std::map<OpKey, CrossRankTotals>& cross_rank,
                    const ConsistencyOptions& consistency, const StepsMaker& make_steps,
                    unsigned jobs) {
  Report report = AssembleReport(std::move(directory), std::move(time_source), records, stats,
                                 pending, consistency);
  AddCollectiveGpuTime(cross_rank, report);
  report.steps = make_steps(report.processes);
  if (report.steps && report.steps->ledger) {
    for (const CommRoleEvidence& role : report.steps->ledger->roles) {
      for (CommunicatorReport& comm : report.communicators) {
        if (comm.comm_id != role.comm_id) continue;
        comm.roles.push_back({std::string(CommRoleName(role.role)), role.evidence});
      }
    }
  }
  if (report.steps && report.steps->source != StepSource::kNvtx) {
    for (const ProcessReport& process : report.processes) {
      report.steps->graph_replays_recorded_whole += process.gpu.graph_replays.count;
    }
  }
  if (report.steps && !report.steps->full_steps.empty()) {
    const StepReplays replays(*report.steps, jobs);
    report.steps->replay = replays.check();
    report.candidates = RankCandidates(report, consistency.contract, &replays);
  } else {
    report.candidates = RankCandidates(report, consistency.contract);
  }
  return report;
}

}  // namespace vprof::reporter
