// Weight sync (train → rollout) where the step ledger has none: the "weight
// sync" NVTX phase of one process (actor window), with the CUDA IPC calls
// behind it when weights move through IPC handles; without the phase, the
// IPC calls alone (operator scope).
#include "reporter/base/rank_name.h"
#include "reporter/base/units.h"
#include "reporter/candidates/candidate_detectors.h"
#include "reporter/phases/phase_rules.h"

namespace vprof::reporter {
namespace {

// The phase vime's update_weights timer maps to, from the phase table.
std::string_view WeightSyncPhase() { return MatchPhaseRule("update_weights")->phase; }

const CoverageProcess* CoverageOf(const Report& report, const std::string& file) {
  if (!report.coverage) return nullptr;
  for (const CoverageProcess& process : report.coverage->processes) {
    if (process.file == file) return &process;
  }
  return nullptr;
}

ActivityTotals IpcTotals(const CoverageProcess* process) {
  return process ? SumOf(process->ipc_calls) : ActivityTotals{};
}

void AddIpcEvidence(const CoverageProcess& process, CandidateReport& candidate) {
  for (const auto& [api, totals] : process.ipc_calls) {
    candidate.evidence.push_back(api + " ×" + std::to_string(totals.count) + ", " +
                                 FormatDurationNs(totals.total_ns) + " over the trace on " +
                                 RankName(process.rank, process.file));
  }
}

// The IPC calls alone: the process with the most IPC time.
void DetectIpcOnly(const Report& report, std::vector<DetectedCandidate>& out) {
  if (!report.coverage) return;
  const CoverageProcess* best = nullptr;
  for (const CoverageProcess& process : report.coverage->processes) {
    if (IpcTotals(&process).total_ns > IpcTotals(best).total_ns) best = &process;
  }
  if (!best) return;
  const TraceWindows windows = TraceWindowsOf(report);
  const ActivityTotals ipc = IpcTotals(best);
  CandidateReport candidate;
  candidate.kind = "weight_sync";
  candidate.title = "Weight sync through CUDA IPC handles";
  candidate.scope = CandidateScope::kOperator;
  candidate.exposed_ns = ipc.total_ns / static_cast<int64_t>(windows.count);
  candidate.total_ns = candidate.exposed_ns;
  candidate.count = ipc.count / windows.count;
  candidate.evidence.push_back("no \"" + std::string(WeightSyncPhase()) +
                               "\" NVTX phase: operator scope, CUDA IPC call time " + windows.text +
                               ", not a step gain");
  AddIpcEvidence(*best, candidate);
  out.push_back({ChangeKind::kBatchIpcHandles, std::move(candidate)});
}

}  // namespace

void DetectWeightSync(const Report& report, std::vector<DetectedCandidate>& out) {
  if (report.steps && report.steps->ledger) {
    // The ledger's weight sync is a candidate of its own (ledger_candidates.cc).
    for (const DetectedCandidate& earlier : out) {
      if (earlier.report.kind == "weight_sync") return;
    }
    return DetectIpcOnly(report, out);
  }
  const ProcessPhasesReport* best_process = nullptr;
  const PhaseReport* best = nullptr;
  for (const ProcessPhasesReport& process : report.phases) {
    for (const PhaseReport& phase : process.phases) {
      if (phase.unmatched || phase.name != WeightSyncPhase() || phase.count == 0) continue;
      if (!best || phase.mean_ns > best->mean_ns) {
        best = &phase;
        best_process = &process;
      }
    }
  }
  if (!best) return DetectIpcOnly(report, out);

  CandidateReport candidate;
  candidate.kind = "weight_sync";
  candidate.title = "Weight sync from training to rollout";
  candidate.scope = CandidateScope::kActorWindow;
  candidate.exposed_ns = best->mean_ns;
  candidate.total_ns = best->mean_ns;
  candidate.evidence.push_back(
      "actor window: the \"" + best->name + "\" NVTX phase on " +
      RankName(best_process->rank, best_process->file) + ": " + std::to_string(best->count) +
      " ranges, mean " + FormatDurationNs(best->mean_ns) + ", total " +
      FormatDurationNs(best->total_ns) + "; one process, not a full-step figure");
  const CoverageProcess* coverage = CoverageOf(report, best_process->file);
  const ActivityTotals ipc = IpcTotals(coverage);
  if (ipc.count > 0) {
    candidate.count = ipc.count / best->count;
    AddIpcEvidence(*coverage, candidate);
  }
  out.push_back({ipc.count > 0 ? ChangeKind::kBatchIpcHandles : ChangeKind::kBatchWeightBroadcasts,
                 std::move(candidate)});
}

}  // namespace vprof::reporter
