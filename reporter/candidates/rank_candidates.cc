#include "reporter/candidates/rank_candidates.h"

#include <algorithm>

#include "reporter/candidates/candidate_detectors.h"
#include "reporter/candidates/candidate_projections.h"

namespace vprof::reporter {
namespace {

bool AnyMeasuredStep(const Report& report) {
  if (!report.steps) return false;
  return std::any_of(report.steps->ranks.begin(), report.steps->ranks.end(),
                     [](const RankStepsReport& rank) { return !rank.steps.empty(); });
}

// What fixing a full-step candidate buys, as a share of the step: its
// projection where the replay gives one, else its time in the ledger.
double SavingShare(const CandidateReport& candidate) {
  if (candidate.projected_share) return *candidate.projected_share;
  return candidate.step_share.value_or(0);
}

int64_t SavingNs(const CandidateReport& candidate) {
  return candidate.projected_saving_ns.value_or(candidate.exposed_ns);
}

// Full-step figures first: only they are gains on the step; actor-window and
// operator figures are upper bounds that other ranks or overlap may hide.
// Among full-step figures, compute is the floor the other causes stand on:
// the waste whose fix buys kSignificantShare of the step or more comes
// first, then compute, then the rest of the waste.
int Tier(const CandidateReport& candidate) {
  switch (candidate.scope) {
    case CandidateScope::kFullStep:
      if (candidate.kind == kComputeKind) return 1;
      return SavingShare(candidate) >= kSignificantShare ? 0 : 2;
    case CandidateScope::kActorWindow:
      return 3;
    case CandidateScope::kOperator:
      break;
  }
  return 4;
}

// Within a tier of waste, by what fixing it buys (the projection where there
// is one); elsewhere by time.
bool RanksBefore(const CandidateReport& a, const CandidateReport& b) {
  if (Tier(a) != Tier(b)) return Tier(a) < Tier(b);
  const bool waste = Tier(a) == 0 || Tier(a) == 2;
  const int64_t a_ns = waste ? SavingNs(a) : a.exposed_ns;
  const int64_t b_ns = waste ? SavingNs(b) : b.exposed_ns;
  if (a_ns != b_ns) return a_ns > b_ns;
  return a.kind < b.kind;
}

}  // namespace

TraceWindows TraceWindowsOf(const Report& report) {
  if (report.steps && report.steps->steps_found > 0) {
    const uint32_t steps = report.steps->steps_found;
    return {steps, "per step (whole trace ÷ " + std::to_string(steps) + " steps found)"};
  }
  return {1, "over the whole trace"};
}

std::vector<CandidateReport> RankCandidates(const Report& report,
                                            const std::optional<RunContract>& contract,
                                            const StepReplays* replays) {
  std::vector<DetectedCandidate> detected;
  if (AnyMeasuredStep(report) && report.steps->ledger) {
    DetectLedgerCandidates(report, detected);
    DetectLedgerStragglers(report, detected);
  } else {
    DetectOperatorCommunication(report, detected);
    DetectOperatorCopies(report, detected);
    DetectStragglers(report, detected);
  }
  DetectLaunchBoundKernels(report, detected);
  DetectWeightSync(report, detected);
  DetectCommunicatorChurn(report, detected);
  DetectAllocatorChurn(report, detected);
  if (replays && report.steps) ProjectCandidates(*report.steps, *replays, detected);

  std::vector<CandidateReport> candidates;
  for (DetectedCandidate& each : detected) {
    CandidateReport& candidate = each.report;
    const StrictVerdict verdict = JudgeStrict(each.change, contract);
    candidate.change = StrictRuleOf(each.change).change_name;
    candidate.strict = verdict.tag;
    candidate.contract_declares = verdict.contract_declares;
    candidate.rule_id = verdict.rule_id;
    candidate.rule = verdict.rule;
    candidates.push_back(std::move(candidate));
  }
  std::stable_sort(candidates.begin(), candidates.end(), RanksBefore);
  for (size_t i = 0; i < candidates.size(); ++i) {
    candidates[i].rank_order = static_cast<uint32_t>(i + 1);
  }
  return candidates;
}

}  // namespace vprof::reporter
