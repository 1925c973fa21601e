// Fast-path candidates as the report shows them: what to build first, ranked by
// the time it could save on the full step, each with its evidence and whether
// a strict-consistency run may use it. Ranked by the candidate analysis
// (reporter/candidates/); tags come from one rule table keyed by the kind of
// change and the run's contract, never from performance figures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vprof::reporter {

// As vime's drift report grades an audit (vime_audit.h reads the audit; its
// entries are here because a candidate's audit links hold them).
enum class AuditStatus : uint8_t { kPass, kWarning, kFailure };
std::string_view AuditStatusName(AuditStatus status);  // "pass", "warning", "failure"

// One rank's audit: the operator it covered and how far training drifted
// from rollout there.
struct VimeAuditEntry {
  std::optional<int64_t> rank;
  std::optional<std::string> operator_name;  // runtime_provenance.operator
  // runtime_provenance.backend_id, else .actual_backend, else axes.logp_backend,
  // else runtime_provenance.requested_backend (vime's own order of preference).
  std::optional<std::string> backend_id;
  std::optional<std::string> contract_id;  // runtime_provenance.contract_id
  std::optional<double> max_abs_dlogp;     // metrics.max_abs_dlogp
  double dlogp_warnings = 0;               // metrics.warning_count
  bool fallback = false;                   // the backend fell back to another one
  bool strict_failure = false;             // the backend failed a strict check
  // A drift report's "status"; for a result cube as vime's drift report
  // would grade it: failure on a strict failure or a metadata failure;
  // warning on any dlogp or metadata warning, a fallback or a non-zero
  // max |dlogp|; else pass.
  AuditStatus status = AuditStatus::kPass;
};

// Where a figure was measured: never present an operator timing as a
// full-step gain.
enum class CandidateScope : uint8_t {
  kOperator,     // one kernel or collective
  kActorWindow,  // one process over one phase window
  kFullStep,     // the step across ranks, on the critical path
};

enum class StrictTag : uint8_t {
  kEligible,       // a strict run may use it as it is
  kNotEligible,    // it changes what strict consistency freezes
  kNeedsContract,  // allowed only when the run's contract declares the axis it changes
};

// A span the exported timeline (vprof export) shows under the same id.
struct CandidateExample {
  std::optional<int32_t> rank;
  std::string file;
  std::string id;  // as the export names it, e.g. "nccl:call:123" or "gpu:corr:456"
  std::string name;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
};

// An operator of vime's consistency audit that the candidate's change would
// touch, by a row of the audit link table (audit_links.cc).
struct CandidateAuditLink {
  std::string rule_id;  // "A1"
  std::string matched;  // the row's word found in the operator or backend id
  VimeAuditEntry entry;
};

// What --audit says about the candidate.
struct CandidateAudit {
  std::string file;
  bool drifted = false;                   // a linked operator's status is warning or failure
  std::vector<CandidateAuditLink> links;  // worst first
};

struct CandidateReport {
  uint32_t rank_order = 0;  // 1 = build first
  // From the step ledger: "straggler", "compute", "gradient_buckets",
  // "weight_sync", "tp_communication", "sharded_dp_communication",
  // "pipeline_communication", "metrics_collectives", "unclassified_communication",
  // "host_idle", "copies"; from totals: "launch_bound_kernels", "weight_sync"
  // (CUDA IPC calls alone), "communicator_churn", "allocator_churn",
  // "straggler" (host call times, without steps), and without steps
  // "communication" and "copies".
  std::string kind;
  std::string title;   // one line for people
  std::string change;  // the change the rule table judged, e.g. "cuda_graph_capture"
  CandidateScope scope = CandidateScope::kFullStep;
  // Where its time is: the rank (the late rank of a straggler, else the rank
  // whose ledger holds the time, where one does), the phase with most of it
  // and, for communication, the role of the collectives; none or empty
  // where the candidate has none.
  std::optional<int32_t> rank;
  std::string phase;
  std::string role;
  int64_t exposed_ns = 0;            // per measured step, on the full step (or the scope's window)
  std::optional<double> step_share;  // of the median full step; full_step scope only
  uint64_t count = 0;                // kernels, collectives or calls behind it, per step
  int64_t total_ns = 0;              // their time, per step
  // What fixing it buys: the full step's time saved, per step, by the
  // replay of the measured steps with the change `projection` names
  // (reporter/replay/); none with the reason in projection_withheld. For a
  // candidate from the step ledger, the saving on the replayed steps
  // (replayed_saving_ns) carried to the measured steps by its time on each
  // (candidate_projections.cc), and its share of the measured mean full
  // step, as step_share is; for the others, and where the replayed steps
  // hold none of the candidate's time, the replayed steps' saving and its
  // share of the unchanged replayed step. Withheld where they hold less than
  // 1 / kCarriedMost of what the measured steps do.
  std::optional<int64_t> projected_saving_ns;
  std::optional<double> projected_share;
  std::optional<int64_t> replayed_saving_ns;  // per replayed step, the replay's own figure
  std::string projection;  // "its kernels 2x faster", "rank 3 running like rank 0"
  std::string projection_withheld;
  // Of exposed_ns, per step, what vprof's own recording may account for
  // (LaunchCostEstimate, host-bound idle only); 0 where not known.
  int64_t vprof_cost_ns = 0;
  std::vector<std::string> evidence;  // short facts, one per line
  std::vector<CandidateExample> examples;
  StrictTag strict = StrictTag::kNeedsContract;
  std::string rule_id;                  // "S3": the row of the rule table (strict_rules.cc)
  std::string rule;                     // the rule's id and text that decided the tag
  bool contract_declares = false;       // the run's contract declares the axis the change needs
  std::optional<CandidateAudit> audit;  // with --audit only
};

// "operator", "actor_window", "full_step".
std::string_view CandidateScopeName(CandidateScope scope);
// "eligible", "not_eligible", "needs_contract".
std::string_view StrictTagName(StrictTag tag);

}  // namespace vprof::reporter
