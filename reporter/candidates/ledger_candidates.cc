// Candidates from the step ledger (reporter/steps/ledger.h): compute, the
// transfer of each communication role, weight sync, host-bound idle and
// copies. Each takes its time from ledger lines no other candidate takes, so
// their full-step shares add up to at most the step; the waits for a late
// rank are the straggler's (straggler_candidate.cc).
#include <algorithm>
#include <map>

#include "reporter/base/rank_name.h"
#include "reporter/base/units.h"
#include "reporter/candidates/candidate_detectors.h"
#include "reporter/phases/inferred_phase.h"
#include "reporter/steps/comm_roles.h"
#include "reporter/steps/ledger.h"

namespace vprof::reporter {
namespace {

// Some of the ledger's lines, summed.
struct Part {
  int64_t per_step_ns = 0;
  double share = 0;
  std::map<std::string, int64_t> by_phase;  // "" for none

  // The phase with the most of it; "" when that is none.
  std::string TopPhase() const {
    const auto top =
        std::max_element(by_phase.begin(), by_phase.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    return top == by_phase.end() ? "" : top->first;
  }
};

Part Sum(const StepsLedger& ledger, const LinePredicate& takes) {
  Part part;
  for (const LedgerLine& line : ledger.lines) {
    if (!takes(line)) continue;
    part.per_step_ns += line.per_step_ns;
    part.share += line.share;
    part.by_phase[line.phase] += line.per_step_ns;
  }
  return part;
}

// "backward 4.80 ms, forward 2.40 ms, no phase 300 µs", most first.
std::string ByPhase(const Part& part) {
  std::vector<std::pair<std::string, int64_t>> phases(part.by_phase.begin(), part.by_phase.end());
  std::stable_sort(phases.begin(), phases.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [phase, ns] : phases) {
    if (ns == 0) continue;
    text += (text.empty() ? "" : ", ") + (phase.empty() ? std::string("no phase") : phase) + " " +
            FormatDurationNs(ns);
  }
  return text;
}

// The rank whose ledger gave the most of the summed steps.
const RankStepsReport& MainLedgerRank(const StepsReport& steps) {
  const std::vector<uint32_t>& counts = steps.ledger->ledger_steps;
  const auto most = std::max_element(counts.begin(), counts.end());
  return steps.ranks[static_cast<size_t>(most - counts.begin())];
}

// "rank 0 in 12 steps, rank 2 in 7": who gave the ledgers, most first.
std::string LedgerRanksText(const StepsReport& steps) {
  std::vector<std::pair<uint32_t, size_t>> counts;
  for (size_t r = 0; r < steps.ledger->ledger_steps.size(); ++r) {
    if (steps.ledger->ledger_steps[r] > 0) counts.emplace_back(steps.ledger->ledger_steps[r], r);
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (size_t i = 0; i < counts.size() && i < 3; ++i) {
    const RankStepsReport& rank = steps.ranks[counts[i].second];
    text += (i == 0 ? "" : ", ") + RankName(rank.rank, rank.file) + " in " +
            std::to_string(counts[i].first);
  }
  if (counts.size() > 3) text += ", " + std::to_string(counts.size() - 3) + " more ranks";
  return text;
}

CandidateReport FromPart(const StepsReport& steps, const Part& part, std::string_view kind,
                         std::string_view title, std::string_view measured) {
  const StepsLedger& ledger = *steps.ledger;
  const RankStepsReport& main = MainLedgerRank(steps);
  CandidateReport report;
  report.kind = kind;
  report.title = title;
  report.scope = ledger.full_steps ? CandidateScope::kFullStep : CandidateScope::kActorWindow;
  report.exposed_ns = part.per_step_ns;
  report.total_ns = part.per_step_ns;
  report.rank = main.rank;
  report.phase = part.TopPhase();
  const std::string per_step = FormatDurationNs(part.per_step_ns) + " " + std::string(measured);
  if (ledger.full_steps) {
    report.step_share = part.share;
    report.evidence.push_back(per_step + " per step, from the step ledger: the mean over " +
                              std::to_string(ledger.steps) + " full steps (" + steps.window +
                              ") of the ledger of the rank that ends each step (" +
                              LedgerRanksText(steps) + ")");
  } else {
    report.evidence.push_back("no full steps across ranks: " + per_step + " per step on " +
                              RankName(main.rank, main.file) + " alone (actor window, " +
                              std::to_string(ledger.steps) + " steps), not a full-step gain");
  }
  if (part.by_phase.size() > 1 ||
      (part.by_phase.size() == 1 && !part.by_phase.begin()->first.empty())) {
    report.evidence.push_back("by phase: " + ByPhase(part));
  }
  return report;
}

// Of the summed steps' collectives of `role`, those with the most exposed
// time, as examples (the export shows them under the same id).
std::vector<CandidateExample> CollectiveExamples(const StepsReport& steps, CommRole role) {
  struct Found {
    const RankStepsReport* rank;
    const StepCollective* collective;
  };
  std::vector<Found> found;
  for (size_t i = 0; i < steps.full_steps.size(); ++i) {
    if (!steps.full_steps[i].ledger_rank) continue;
    const RankStepsReport& rank = steps.ranks[*steps.full_steps[i].ledger_rank];
    for (const StepCollective& collective : rank.steps[i].collectives) {
      if (collective.role == role && collective.exposed_ns > 0)
        found.push_back({&rank, &collective});
    }
  }
  const size_t keep = std::min(found.size(), kMaxCandidateExamples);
  std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
                    [](const Found& a, const Found& b) {
                      if (a.collective->exposed_ns != b.collective->exposed_ns) {
                        return a.collective->exposed_ns > b.collective->exposed_ns;
                      }
                      return a.collective->correlation_id < b.collective->correlation_id;
                    });
  std::vector<CandidateExample> examples;
  for (size_t i = 0; i < keep; ++i) {
    const StepCollective& c = *found[i].collective;
    examples.push_back({found[i].rank->rank, found[i].rank->file,
                        "correlation:" + std::to_string(c.correlation_id),
                        std::string(NcclFunctionName(c.function)) + " of " + FormatBytes(c.bytes) +
                            " on comm " + FormatHexId(c.comm_id) + ", " +
                            FormatDurationNs(c.exposed_ns) + " exposed",
                        c.start_ns, c.duration_ns});
  }
  return examples;
}

bool InWeightSync(const LedgerLine& line) { return line.phase == kWeightSyncPhase; }

void DetectCompute(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const LinePredicate lines = [](const LedgerLine& line) {
    return line.cause == LedgerCause::kCompute && !InWeightSync(line);
  };
  const Part part = Sum(*steps.ledger, lines);
  if (part.per_step_ns <= 0) return;
  CandidateReport candidate =
      FromPart(steps, part, kComputeKind, "GPU compute: the kernels themselves", "of GPU compute");
  const RankStepsReport& main = MainLedgerRank(steps);
  for (const ProcessReport& process : report.processes) {
    if (process.file != main.file || process.gpu.kernel_classes.empty()) continue;
    std::string line = RankName(main.rank, main.file) + "'s kernel time by class over the trace:";
    size_t shown = 0;
    for (const KernelClassReport& kernel_class : process.gpu.kernel_classes) {
      if (shown++ == 4) break;
      line += " " + kernel_class.kernel_class + " " + FormatPercent(kernel_class.share);
    }
    candidate.evidence.push_back(line);
  }
  candidate.evidence.push_back(
      "the step is as short as its kernels only where nothing else is exposed: the other "
      "candidates' time is apart from this");
  out.push_back({ChangeKind::kFasterKernels, std::move(candidate), lines});
}

// Of the GPU's idle inside a rank's kept steps (the replay's pieces of work),
// the part that ended when work a CUDA graph launched began: idle that
// capturing the work in a graph cannot remove, for it is in one already.
struct IdleBeforeGraphs {
  int64_t before_graph_ns = 0;
  int64_t idle_ns = 0;
};

IdleBeforeGraphs IdleBeforeGraphsOf(const RankStepsReport& rank) {
  IdleBeforeGraphs idle;
  std::vector<const ReplayWork*> by_start;
  for (const RankStepReport& step : rank.steps) {
    by_start.clear();
    for (const ReplayWork& work : step.replay) by_start.push_back(&work);
    std::sort(by_start.begin(), by_start.end(),
              [](const ReplayWork* a, const ReplayWork* b) { return a->start_ns < b->start_ns; });
    int64_t busy_until = step.start_ns;
    for (const ReplayWork* work : by_start) {
      if (work->start_ns > busy_until) {
        const int64_t gap = work->start_ns - busy_until;
        idle.idle_ns += gap;
        if (work->whole_graph || work->from_graph) idle.before_graph_ns += gap;
      }
      busy_until = std::max(busy_until, work->end_ns);
    }
  }
  return idle;
}

void DetectHostIdle(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const LinePredicate lines = [](const LedgerLine& line) {
    return line.cause == LedgerCause::kHostBoundIdle && !InWeightSync(line);
  };
  const Part part = Sum(*steps.ledger, lines);
  if (part.per_step_ns <= 0) return;
  CandidateReport candidate =
      FromPart(steps, part, "host_idle", "GPU idle until the host launched the next work",
               "of GPU idle while the host had not launched the next work");
  const Part cost = Sum(
      *steps.ledger, [](const LedgerLine& line) { return line.cause == LedgerCause::kVprofCost; });
  const RankStepsReport& main = MainLedgerRank(steps);
  if (main.launch_cost) {
    candidate.vprof_cost_ns = cost.per_step_ns;
    candidate.evidence.push_back(
        "vprof's own cost is apart, a line of its own in the ledger: " +
        FormatDurationNs(cost.per_step_ns) + " per step (recording adds " +
        FormatDurationNs(static_cast<int64_t>(main.launch_cost->added_per_launch_ns)) +
        " to each launch, the least it adds); the most it may add is stated under vprof's own "
        "cost");
  }
  // The longest gap of each rank that gave a ledger: its own host-bound idle.
  for (size_t r = 0; r < steps.ranks.size(); ++r) {
    const RankStepsReport& rank = steps.ranks[r];
    if (steps.ledger->ledger_steps[r] == 0 || !rank.longest_idle_gap) continue;
    if (candidate.examples.size() == kMaxCandidateExamples) break;
    const SpanRef& gap = *rank.longest_idle_gap;
    candidate.examples.push_back(
        {rank.rank, rank.file, gap.id, gap.name, gap.start_ns, gap.duration_ns});
  }
  if (!candidate.examples.empty()) {
    candidate.evidence.push_back(
        "examples: the longest idle gap of each rank that gave a ledger (its start and length; "
        "the id and name of the GPU work that ended it)");
  }
  // Work already replayed from CUDA graphs is not advised into one: where most of the idle
  // ended as a graph's work began, what is left is the host's time between the replays.
  const IdleBeforeGraphs graphs = IdleBeforeGraphsOf(main);
  ChangeKind change = ChangeKind::kCudaGraphCapture;
  if (graphs.before_graph_ns > 0) {
    const double share =
        static_cast<double>(graphs.before_graph_ns) / static_cast<double>(graphs.idle_ns);
    if (2 * graphs.before_graph_ns >= graphs.idle_ns) {
      change = ChangeKind::kShortenHostWork;
      candidate.title = "GPU idle between CUDA-graph replays, waiting for the host";
    }
    candidate.evidence.push_back(
        FormatPercent(share) + " of the GPU's idle in " + RankName(main.rank, main.file) +
        "'s kept steps ended as work a CUDA graph launched began: that work is in a graph " +
        (change == ChangeKind::kShortenHostWork
             ? "already; what is left is the host's time between the replays (its "
               "synchronizations, its work between launches)"
             : "already, the rest is before work launched one by one"));
  }
  out.push_back({change, std::move(candidate), lines});
}

void DetectCopies(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const LinePredicate lines = [](const LedgerLine& line) {
    return line.cause == LedgerCause::kCopy;
  };
  const Part part = Sum(*steps.ledger, lines);
  if (part.per_step_ns <= 0) return;
  CandidateReport candidate =
      FromPart(steps, part, "copies", "Copies with neither compute nor communication",
               "of copies with the GPU otherwise idle");
  const RankStepsReport& main = MainLedgerRank(steps);
  ChangeKind change = ChangeKind::kAsyncPinnedCopies;
  for (const ProcessReport& process : report.processes) {
    if (process.file != main.file) continue;
    const GpuReport& gpu = process.gpu;
    const std::string rank = RankName(process.rank, process.file);
    candidate.evidence.push_back(rank + ": " + std::to_string(gpu.memcpy.count) + " memcpy (" +
                                 FormatBytes(gpu.memcpy.bytes) + ", " +
                                 FormatDurationNs(gpu.memcpy.total_ns) + ") and " +
                                 std::to_string(gpu.memset.count) + " memset over the trace");
    change = CopiesChange(rank, gpu, candidate);
  }
  out.push_back({change, std::move(candidate), lines});
}

// What each role's candidate is: kind, title, change.
struct RoleCandidate {
  CommRole role;
  std::string_view kind;
  std::string_view title;
  ChangeKind change;
};

constexpr RoleCandidate kRoleCandidates[] = {
    {CommRole::kGradientBuckets, "gradient_buckets",
     "Gradient-bucket reductions not hidden behind backward", ChangeKind::kOverlapSameBuckets},
    {CommRole::kTensorParallel, "tp_communication",
     "Tensor-parallel collectives not hidden behind compute", ChangeKind::kCustomAllReduce},
    {CommRole::kShardedDataParallel, "sharded_dp_communication",
     "Sharded data parallel's gathers and reduce-scatters not hidden behind compute",
     ChangeKind::kPrefetchShardedGathers},
    {CommRole::kPipeline, "pipeline_communication",
     "Pipeline sends and receives not hidden behind compute",
     ChangeKind::kOverlapPipelineTransfers},
    {CommRole::kMetrics, "metrics_collectives", "Small metric collectives on the step's path",
     ChangeKind::kDeferMetricCollectives},
    {CommRole::kUnclassified, "unclassified_communication",
     "Exposed communication whose role no evidence names", ChangeKind::kNcclAlgorithmChange},
};

// The waits for a late rank at `role`'s collectives, when some rank is a
// straggler: "of which" they are the straggler's, not this candidate's.
void AddStragglerShare(const StepsReport& steps, CommRole role, CandidateReport& candidate) {
  const Part waits = Sum(*steps.ledger, [&](const LedgerLine& line) {
    return line.cause == LedgerCause::kWaitForRank && line.role == role;
  });
  if (waits.per_step_ns <= 0) return;
  candidate.evidence.push_back(
      "apart from this: the exposed wait at these collectives for the last member to arrive, " +
      FormatDurationNs(waits.per_step_ns) +
      " per step, is the late ranks' (the straggler candidate, where one is named)");
}

// Where the gradient buckets' overlap with backward is in place already, issuing them earlier
// (S5) is not what is left to do. It is in place when the buckets before each step's last ran
// hidden behind compute for at least half of what could hide them: their own time, or
// backward's compute where that is shorter (all-reduces longer than backward queue up behind
// each other). What stays exposed is then the last bucket, which the end of backward makes
// ready (a smaller last bucket regroups the gradients: S4), or, where the exposed time is
// spread over the buckets, all-reduces that outlast the compute they run under (a faster
// transfer: S7).
ChangeKind GradientBucketsChange(const StepsReport& steps, const RankStepsReport& main,
                                 CandidateReport& candidate) {
  // A step's reductions of backward are all in its buckets; the gradients' are those on
  // communicators the ledger gave the role (tensor-parallel and sharded reductions are not).
  std::vector<uint64_t> gradient_comms;
  for (const CommRoleEvidence& evidence : steps.ledger->roles) {
    if (evidence.role == CommRole::kGradientBuckets) gradient_comms.push_back(evidence.comm_id);
  }
  const auto gradient = [&](const BucketReport& bucket) {
    return std::find(gradient_comms.begin(), gradient_comms.end(), bucket.comm_id) !=
           gradient_comms.end();
  };
  int64_t earlier_gpu_ns = 0, earlier_hidden_ns = 0, last_exposed_ns = 0, exposed_ns = 0;
  int64_t backward_ns = 0;
  for (const RankStepReport& step : main.steps) {
    const BucketReport* last = nullptr;
    for (const BucketReport& bucket : step.buckets) {
      if (!gradient(bucket)) continue;
      if (last) {
        earlier_gpu_ns += last->gpu_ns;
        earlier_hidden_ns += std::clamp<int64_t>(last->gpu_ns - last->exposed_ns, 0, last->gpu_ns);
      }
      last = &bucket;
      exposed_ns += std::max<int64_t>(bucket.exposed_ns, 0);
    }
    if (!last) continue;
    last_exposed_ns += std::max<int64_t>(last->exposed_ns, 0);
    int64_t step_backward_ns = 0;
    for (const PhaseTime& phase : step.compute_by_phase) {
      if (main.phase_names[phase.phase] == kBackwardPhase) step_backward_ns += phase.ns;
    }
    // Without a backward phase, the step's compute.
    backward_ns += step_backward_ns > 0 ? step_backward_ns : step.times.compute_ns;
  }
  // Shares, not doubled sums: figures read from a file may be as large as int64 holds.
  const double could_hide = static_cast<double>(std::min(earlier_gpu_ns, backward_ns));
  if (could_hide <= 0 || exposed_ns <= 0 ||
      static_cast<double>(earlier_hidden_ns) < could_hide / 2) {
    return ChangeKind::kOverlapSameBuckets;
  }
  const double last_share = static_cast<double>(last_exposed_ns) / static_cast<double>(exposed_ns);
  const bool last = last_share >= 0.5;
  candidate.evidence.push_back(
      "overlap in place on " + RankName(main.rank, main.file) + ": the buckets before each " +
      "step's last ran hidden behind compute for " +
      FormatPercent(std::min(1.0, static_cast<double>(earlier_hidden_ns) / could_hide)) +
      " of what could hide them (their own time or backward's compute, whichever is "
      "shorter); the last bucket holds " +
      FormatPercent(last_share) + " of the buckets' exposed time" +
      (last ? ": it is ready only when backward ends, so a smaller last bucket leaves less after "
              "it"
            : ": the all-reduces outlast the compute they run under, so a faster transfer is "
              "what is left"));
  return last ? ChangeKind::kOverlapRegroupingReductions : ChangeKind::kNcclAlgorithmChange;
}

void DetectRoles(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  for (const RoleCandidate& each : kRoleCandidates) {
    const LinePredicate lines = [role = each.role](const LedgerLine& line) {
      return line.cause == LedgerCause::kTransfer && line.role == role;
    };
    const Part part = Sum(*steps.ledger, lines);
    if (part.per_step_ns <= 0) continue;
    CandidateReport candidate = FromPart(steps, part, each.kind, each.title,
                                         "of exposed transfer (after every member arrived)");
    candidate.role = CommRoleName(each.role);
    candidate.evidence.push_back("role " + candidate.role +
                                 ": the Communicators section gives each communicator's evidence");
    AddStragglerShare(steps, each.role, candidate);
    const RankStepsReport& main = MainLedgerRank(steps);
    if (each.role == CommRole::kGradientBuckets && main.bucket_plan_stable) {
      const size_t count = main.steps.empty() ? 0 : main.steps.front().buckets.size();
      candidate.evidence.push_back(RankName(main.rank, main.file) + ": " + std::to_string(count) +
                                   " buckets in its first measured step; bucket plan " +
                                   (*main.bucket_plan_stable ? "stable" : "NOT stable") +
                                   " across steps");
    }
    if (!main.total.exposed_by_reason_ns.empty()) {
      std::string line = "why communication was not overlapped on " +
                         RankName(main.rank, main.file) + " (all roles, per step):";
      const auto count = static_cast<int64_t>(std::max<size_t>(1, main.steps.size()));
      for (const auto& [reason, ns] : main.total.exposed_by_reason_ns) {
        line += " " + std::string(ExposureReasonName(reason)) + " " + FormatDurationNs(ns / count);
      }
      candidate.evidence.push_back(line);
    }
    candidate.examples = CollectiveExamples(steps, each.role);
    const ChangeKind change = each.role == CommRole::kGradientBuckets
                                  ? GradientBucketsChange(steps, main, candidate)
                                  : each.change;
    out.push_back({change, std::move(candidate), lines});
  }
}

ActivityTotals IpcTotals(const Report& report, const std::string& file) {
  ActivityTotals sum;
  if (!report.coverage) return sum;
  for (const CoverageProcess& process : report.coverage->processes) {
    if (process.file == file) sum.Merge(SumOf(process.ipc_calls));
  }
  return sum;
}

// Weight sync: its collectives' transfer, and the compute and host-bound
// idle of the weight-sync phase.
void DetectWeightSyncPart(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const auto in_sync = [](const LedgerLine& line) {
    return (line.cause == LedgerCause::kTransfer && line.role == CommRole::kWeightSync) ||
           ((line.cause == LedgerCause::kCompute || line.cause == LedgerCause::kHostBoundIdle) &&
            InWeightSync(line));
  };
  const Part part = Sum(*steps.ledger, in_sync);
  if (part.per_step_ns <= 0) return;
  CandidateReport candidate = FromPart(steps, part, "weight_sync",
                                       "Weight sync from training to rollout", "of weight sync");
  candidate.role = CommRoleName(CommRole::kWeightSync);
  std::string parts = "of it:";
  for (const LedgerCause cause :
       {LedgerCause::kTransfer, LedgerCause::kCompute, LedgerCause::kHostBoundIdle}) {
    const Part one = Sum(*steps.ledger, [&](const LedgerLine& line) {
      return line.cause == cause && in_sync(line);
    });
    if (one.per_step_ns > 0) {
      parts += " " + std::string(LedgerCauseName(cause)) + " " + FormatDurationNs(one.per_step_ns);
    }
  }
  candidate.evidence.push_back(parts);
  AddStragglerShare(steps, CommRole::kWeightSync, candidate);
  const RankStepsReport& main = MainLedgerRank(steps);
  const ActivityTotals ipc = IpcTotals(report, main.file);
  if (ipc.count > 0) {
    candidate.evidence.push_back("CUDA IPC calls on " + RankName(main.rank, main.file) + ": " +
                                 std::to_string(ipc.count) + ", " + FormatDurationNs(ipc.total_ns) +
                                 " over the trace");
  }
  candidate.examples = CollectiveExamples(steps, CommRole::kWeightSync);
  out.push_back({ipc.count > 0 ? ChangeKind::kBatchIpcHandles : ChangeKind::kBatchWeightBroadcasts,
                 std::move(candidate), in_sync});
}

}  // namespace

void DetectLedgerCandidates(const Report& report, std::vector<DetectedCandidate>& out) {
  DetectCompute(report, out);
  DetectRoles(report, out);
  DetectWeightSyncPart(report, out);
  DetectHostIdle(report, out);
  DetectCopies(report, out);
}

}  // namespace vprof::reporter
