// vime's consistency audit, read from the JSON file `vprof report --audit FILE`
// names: what vime (RL-Align/vime) found when it compared training and rollout
// log-probabilities, per rank, and which operator and backend it attributes
// the drift to. Two shapes of vime's own records are accepted, alone or as an
// array of them (one per rank):
//
//   result cube (vime/utils/consistency_audit.py):
//     {"schema_version": 1, "mode": "audit", "rank": 3,
//      "axes": {"logp_backend": "rlk.linear_logp.fast", ...},
//      "metrics": {"max_abs_dlogp": 0.125, "warning_count": 1,
//                  "metadata_warning_count": 0, "metadata_failure_count": 0, ...},
//      "runtime_provenance": {"operator": "linear_logp", "backend_id": "...",
//                             "actual_backend": "...", "contract_id": "...",
//                             "fallback": false, "strict_failure": false}}
//   drift report (vime/utils/consistency_drift_report.py): the same
//     "metrics", "axes" and "runtime_provenance", plus its "status".
//
// Required: "metrics" and "runtime_provenance" (objects), and an operator or
// a backend to link. Other keys vime writes are ignored; the ones read must
// have the types above.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/model/candidate_report.h"

namespace vprof::reporter {

inline constexpr int64_t kVimeAuditSchemaVersion = 1;

// The entries (VimeAuditEntry) are in candidate_report.h.
struct VimeAudit {
  std::string file;                     // where it was read from
  std::vector<VimeAuditEntry> entries;  // in file order
};

struct VimeAuditLoad {
  std::optional<VimeAudit> audit;
  // "FILE: key '[1].metrics.max_abs_dlogp': expected a number or null, got
  // \"big\""; empty when audit is set.
  std::string error;
};

VimeAuditLoad LoadVimeAudit(const std::string& path);
// `file` names the text in messages.
VimeAuditLoad ParseVimeAudit(std::string_view text, const std::string& file);

}  // namespace vprof::reporter
