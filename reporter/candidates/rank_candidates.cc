#include "reporter/candidates/rank_candidates.h"

#include <algorithm>

#include "reporter/candidates/candidate_detectors.h"

namespace vprof::reporter {
namespace {

bool AnyMeasuredStep(const Report& report) {
  if (!report.steps) return false;
  return std::any_of(report.steps->ranks.begin(), report.steps->ranks.end(),
                     [](const RankStepsReport& rank) { return !rank.steps.empty(); });
}

// Full-step figures first: only they are gains on the step; actor-window and
// operator figures are upper bounds that other ranks or overlap may hide.
// Among full-step figures, compute is the floor the other causes stand on:
// the waste that reaches kSignificantShare of the step comes first, then
// compute, then the rest of the waste.
int Tier(const CandidateReport& candidate) {
  switch (candidate.scope) {
    case CandidateScope::kFullStep:
      if (candidate.kind == kComputeKind) return 1;
      return candidate.step_share.value_or(0) >= kSignificantShare ? 0 : 2;
    case CandidateScope::kActorWindow:
      return 3;
    case CandidateScope::kOperator:
      break;
  }
  return 4;
}

bool RanksBefore(const CandidateReport& a, const CandidateReport& b) {
  if (Tier(a) != Tier(b)) return Tier(a) < Tier(b);
  if (a.exposed_ns != b.exposed_ns) return a.exposed_ns > b.exposed_ns;
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
                                            const std::optional<RunContract>& contract) {
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
