// Links fast-path candidates to the operators of vime's consistency audit
// (--audit) that their change would touch, by one rule table (audit_links.cc):
// a candidate kind on one side, words an audited operator's name or backend id
// contains on the other. The link is evidence next to the strict tag; it never
// changes the tag (tags come from the strict rule table only).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/candidates/vime_audit.h"
#include "reporter/model/candidate_report.h"

namespace vprof::reporter {

struct AuditLinkRule {
  std::string_view id;                      // "A1"
  std::span<const std::string_view> kinds;  // candidate kinds, e.g. "tp_communication"
  std::span<const std::string_view> words;  // in the operator or backend id, e.g. "all_reduce"
};

// Every row, in table order.
std::span<const AuditLinkRule> AuditLinkRules();

// Sets `audit` on every candidate: the entries of `audit` its kind relates
// to, worst first (failure, warning, pass; then the larger max |dlogp|).
void LinkAudit(const VimeAudit& audit, std::vector<CandidateReport>& candidates);

// "A1 all_reduce: rank 3 operator custom_all_reduce, backend vllm.custom_ar,
// contract c1: failure, max |dlogp| 0.125, fallback": one link in one line.
std::string AuditLinkText(const CandidateAuditLink& link);

// "audit drift: linear_logp on rank 3 (failure, max |dlogp| 0.125)", one line for
// tables that show the audit beside the evidence; empty without --audit.
std::string AuditSummary(const CandidateReport& candidate);

}  // namespace vprof::reporter
