// What fixing each candidate buys: the change it stands for, replayed on the
// measured steps (reporter/replay/). One table: a candidate kind, the change
// in words, and the change itself.
#include "reporter/candidates/candidate_projections.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "reporter/base/rank_list.h"
#include "reporter/base/units.h"
#include "reporter/gpu/kernel_class.h"
#include "reporter/phases/inferred_phase.h"
#include "reporter/steps/comm_roles.h"
#include "reporter/steps/ledger.h"

namespace vprof::reporter {
namespace {

using Make = std::optional<ReplayChange> (*)(const DetectedCandidate&, const StepsReport&,
                                             std::string& why_not);

ReplayChange Faster(std::string description, WorkPredicate applies, double factor) {
  ReplayChange change;
  change.description = std::move(description);
  change.faster.push_back({std::move(applies), factor});
  return change;
}

WorkPredicate OfRole(CommRole role) {
  return
      [role](const WorkOf& of) { return of.work.kind == WorkKind::kComm && of.work.role == role; };
}

std::optional<ReplayChange> Straggler(const DetectedCandidate& detected, const StepsReport& steps,
                                      std::string& why_not) {
  const CandidateReport& candidate = detected.report;
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    if (!candidate.rank || steps.ranks[r].rank != candidate.rank) continue;
    const std::optional<uint32_t> like = MedianRankBut(steps, r);
    if (!like) break;
    ReplayChange change;
    change.description = "rank " + std::to_string(*candidate.rank) + " running like rank " +
                         std::to_string(steps.ranks[*like].rank.value_or(-1)) +
                         " (the median rank): its host gaps and GPU times";
    change.runs_like.emplace_back(r, *like);
    return change;
  }
  why_not = "no rank to compare the late rank with";
  return std::nullopt;
}

std::optional<ReplayChange> Compute(const DetectedCandidate&, const StepsReport&, std::string&) {
  return Faster(
      "every compute kernel 2x faster",
      [](const WorkOf& of) {
        return of.work.kind == WorkKind::kCompute && of.phase() != kWeightSyncPhase;
      },
      2);
}

// The ranks the ledger names stragglers, each with the median rank of the
// others: a change of host timing keeps their lateness, for it is the
// straggler candidate's.
std::vector<std::pair<uint32_t, uint32_t>> Stragglers(const StepsReport& steps) {
  std::vector<std::pair<uint32_t, uint32_t>> ranks;
  if (!steps.ledger) return ranks;
  for (const LateRank& late : steps.ledger->late) {
    if (late.straggler)
      ranks.emplace_back(late.index, MedianRankBut(steps, late.index).value_or(kNone));
  }
  return ranks;
}

ReplayChange BucketsWhenReady(const StepsReport& steps) {
  ReplayChange change;
  change.description =
      "gradient buckets issued as soon as their gradients are ready, in the same buckets and "
      "order";
  change.launched_when_ready = OfRole(CommRole::kGradientBuckets);
  change.lateness_kept = Stragglers(steps);
  return change;
}

// What regrouping the buckets could buy at most: reductions that start with
// backward, as buckets of any size would let them.
ReplayChange RegroupedBuckets(const StepsReport& steps) {
  ReplayChange change = BucketsWhenReady(steps);
  change.description =
      "gradient reductions regrouped to start with backward (an upper bound: the last "
      "gradients are still computed last)";
  change.ready_with_backward = true;
  return change;
}

ReplayChange TransferFaster(CommRole role) {
  return Faster("its collectives' transfer 2x faster", OfRole(role), 2);
}

template <CommRole kRole>
std::optional<ReplayChange> RoleFaster(const DetectedCandidate&, const StepsReport&, std::string&) {
  return TransferFaster(kRole);
}

// The change the gradient-bucket candidate stands for (ledger_candidates.cc): the same buckets
// issued when ready, or, where that overlap is in place, regrouped or a faster transfer.
std::optional<ReplayChange> Buckets(const DetectedCandidate& detected, const StepsReport& steps,
                                    std::string&) {
  switch (detected.change) {
    case ChangeKind::kOverlapRegroupingReductions:
      return RegroupedBuckets(steps);
    case ChangeKind::kNcclAlgorithmChange:
      return TransferFaster(CommRole::kGradientBuckets);
    default:
      return BucketsWhenReady(steps);
  }
}

std::optional<ReplayChange> Metrics(const DetectedCandidate&, const StepsReport&, std::string&) {
  return Faster("the metric collectives taken off the step", OfRole(CommRole::kMetrics), 0);
}

std::optional<ReplayChange> WeightSync(const DetectedCandidate&, const StepsReport&, std::string&) {
  return Faster(
      "weight sync taken off the step's path (its collectives and its phase's GPU work)",
      [](const WorkOf& of) {
        return (of.work.kind == WorkKind::kComm && of.work.role == CommRole::kWeightSync) ||
               of.phase() == kWeightSyncPhase;
      },
      0);
}

std::optional<ReplayChange> HostIdle(const DetectedCandidate&, const StepsReport& steps,
                                     std::string&) {
  ReplayChange change;
  change.description = std::string(kLaunchPaceChange);
  change.no_host_gaps = true;
  change.lateness_kept = Stragglers(steps);
  return change;
}

std::optional<ReplayChange> Copies(const DetectedCandidate&, const StepsReport&, std::string&) {
  return Faster(
      "the copies taken off the step (overlapped with compute)",
      [](const WorkOf& of) { return of.work.kind == WorkKind::kCopy; }, 0);
}

std::optional<ReplayChange> LaunchBound(const DetectedCandidate&, const StepsReport&,
                                        std::string&) {
  return Faster(
      "the short elementwise, reduce and copy kernels fused: half their time",
      [](const WorkOf& of) {
        const std::string_view kernel_class = KernelClassOf(of.name());
        return of.work.kind == WorkKind::kCompute &&
               (kernel_class == "elementwise" || kernel_class == "reduce" ||
                kernel_class == "copy");
      },
      2);
}

struct Row {
  std::string_view kind;
  Make make;
};

constexpr std::array kRows = {
    Row{"straggler", Straggler},
    Row{"compute", Compute},
    Row{"gradient_buckets", Buckets},
    Row{"tp_communication", RoleFaster<CommRole::kTensorParallel>},
    Row{"sharded_dp_communication", RoleFaster<CommRole::kShardedDataParallel>},
    Row{"pipeline_communication", RoleFaster<CommRole::kPipeline>},
    Row{"unclassified_communication", RoleFaster<CommRole::kUnclassified>},
    Row{"metrics_collectives", Metrics},
    Row{"weight_sync", WeightSync},
    Row{"host_idle", HostIdle},
    Row{"copies", Copies},
    Row{"launch_bound_kernels", LaunchBound},
};

// The replay keeps the first kReplaySteps measured steps (step_store.h); a
// ledger candidate's time is the mean over every measured full step. Where
// the two differ (a first step that compiled or warmed a cache), the saving
// on the replayed steps is carried to the measured steps in proportion to
// the candidate's time on each: saving × its time per measured step ÷ its
// time per replayed step, and the share is of the measured mean step, as
// the candidate's own share is. Unchanged where the replayed steps hold none
// of it; withheld where they hold less than 1 / kCarriedMost of what the
// measured steps do. Returns the evidence line that names a ratio far from 1
// where there is a saving, else "": the caller adds the one of the
// projection it keeps.
std::string SetProjection(const StepsReport& steps, const Projection& projection,
                          DetectedCandidate& candidate) {
  CandidateReport& report = candidate.report;
  report.projected_saving_ns = projection.saving_ns;
  report.projected_share = projection.saving_share;
  report.replayed_saving_ns = projection.saving_ns;
  if (!candidate.ledger_lines || !steps.ledger || steps.ledger->mean_step_ns <= 0) return "";
  int64_t on_replayed = 0;
  for (const LedgerLine& line : LedgerOfFullSteps(steps, projection.full_steps).lines) {
    if (candidate.ledger_lines(line)) on_replayed += line.per_step_ns;
  }
  if (on_replayed <= 0) return "";
  const double ratio = static_cast<double>(report.exposed_ns) / static_cast<double>(on_replayed);
  std::vector<uint32_t> numbers;
  for (const uint32_t i : projection.full_steps) {
    numbers.push_back(StepNumber(steps, steps.full_steps[i].step));
  }
  std::sort(numbers.begin(), numbers.end());
  const std::string held = "the replayed steps (" + RankList(RankRanges(numbers)) + ") hold " +
                           FormatDurationNs(on_replayed) + " of it per step, the measured steps " +
                           FormatDurationNs(report.exposed_ns);
  if (ratio > kCarriedMost) {
    report.projected_saving_ns.reset();
    report.projected_share.reset();
    report.projection_withheld = held + ": too little to carry their saving (" +
                                 FormatDurationNs(projection.saving_ns) + ") over";
    return "";
  }
  const double saving = static_cast<double>(projection.saving_ns) * ratio;
  report.projected_saving_ns = std::llround(saving);
  report.projected_share = saving / static_cast<double>(steps.ledger->mean_step_ns);
  if (projection.saving_ns == 0 || std::fabs(ratio - 1) <= kCarriedNoted) return "";
  return held + ": the saving on the replayed steps (" + FormatDurationNs(projection.saving_ns) +
         ") is carried to the measured steps in that proportion";
}

// The same buckets issued sooner can buy nothing where they are ready only
// as backward ends (one bucket after the last layer). Where regrouping would
// buy more than twice as much, the candidate stands for regrouping (S4, not
// eligible under strict consistency), with what the same buckets buy as
// evidence; `carried` becomes the regrouping's (SetProjection).
void OfferRegrouping(const StepsReport& steps, const StepReplays& replays,
                     const Projection& same_buckets, DetectedCandidate& candidate,
                     std::string& carried) {
  std::string why_not;
  const ReplayChange change = RegroupedBuckets(steps);
  const std::optional<Projection> regrouped = replays.Project(change, why_not);
  CandidateReport& report = candidate.report;
  if (!regrouped || regrouped->saving_ns <= 2 * std::max<int64_t>(0, same_buckets.saving_ns)) {
    return;
  }
  report.evidence.push_back("the same buckets issued as soon as their gradients are ready save " +
                            FormatDurationNs(*report.projected_saving_ns) +
                            " per step (projected): they are ready only as backward ends");
  candidate.change = ChangeKind::kOverlapRegroupingReductions;
  report.projection = change.description;
  carried = SetProjection(steps, *regrouped, candidate);
}

}  // namespace

void ProjectCandidates(const StepsReport& steps, const StepReplays& replays,
                       std::vector<DetectedCandidate>& candidates) {
  for (DetectedCandidate& each : candidates) {
    CandidateReport& candidate = each.report;
    const Row* row = nullptr;
    for (const Row& r : kRows) {
      if (r.kind == candidate.kind) row = &r;
    }
    if (!row) {
      candidate.projection_withheld =
          "the replay does not hold what this change touches (host API calls outside the steps' "
          "launches, communicator setup)";
      continue;
    }
    std::string why_not;
    const std::optional<ReplayChange> change = row->make(each, steps, why_not);
    if (!change) {
      candidate.projection_withheld = why_not;
      continue;
    }
    candidate.projection = change->description;
    const std::optional<Projection> projected = replays.Project(*change, why_not);
    if (!projected) {
      candidate.projection_withheld = why_not;
      continue;
    }
    std::string carried = SetProjection(steps, *projected, each);
    if (each.change == ChangeKind::kOverlapSameBuckets) {
      OfferRegrouping(steps, replays, *projected, each, carried);
    }
    if (!carried.empty()) candidate.evidence.push_back(std::move(carried));
  }
}

}  // namespace vprof::reporter
