#include "reporter/model/candidate_report.h"

namespace vprof::reporter {

std::string_view CandidateScopeName(CandidateScope scope) {
  switch (scope) {
    case CandidateScope::kOperator:
      return "operator";
    case CandidateScope::kActorWindow:
      return "actor_window";
    case CandidateScope::kFullStep:
      break;
  }
  return "full_step";
}

std::string_view StrictTagName(StrictTag tag) {
  switch (tag) {
    case StrictTag::kEligible:
      return "eligible";
    case StrictTag::kNotEligible:
      return "not_eligible";
    case StrictTag::kNeedsContract:
      break;
  }
  return "needs_contract";
}

std::string_view AuditStatusName(AuditStatus status) {
  switch (status) {
    case AuditStatus::kPass:
      return "pass";
    case AuditStatus::kWarning:
      return "warning";
    case AuditStatus::kFailure:
      break;
  }
  return "failure";
}

}  // namespace vprof::reporter
