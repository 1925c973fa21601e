#include "reporter/candidates/audit_links.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace vprof::reporter {
namespace {

// Communication candidates: the change (overlap, custom all-reduce, another
// NCCL algorithm) runs the very collectives an audited collective backend ran.
constexpr std::string_view kCommunicationKinds[] = {
    "tp_communication",       "gradient_buckets",           "sharded_dp_communication",
    "pipeline_communication", "unclassified_communication", "communication"};
constexpr std::string_view kCollectiveWords[] = {"all_reduce",    "allreduce",  "custom_ar",
                                                 "all_gather",    "allgather",  "reduce_scatter",
                                                 "reducescatter", "collective", "nccl"};
// Launch-bound kernels: fusing them changes the elementwise operators the
// audit compared (RL-Kernel's rmsnorm, rope, swiglu, ratio_kl and kin).
constexpr std::string_view kElementwiseKinds[] = {"launch_bound_kernels"};
constexpr std::string_view kElementwiseWords[] = {"elementwise", "rmsnorm", "rms_norm", "layernorm",
                                                  "layer_norm",  "swiglu",  "silu",     "gelu",
                                                  "rope",        "rotary",  "ratio_kl", "bias_add"};
// Weight sync: batching it changes how updated weights reach rollout, which
// the audit sees as weight-update operators.
constexpr std::string_view kWeightSyncKinds[] = {"weight_sync"};
constexpr std::string_view kWeightUpdateWords[] = {"weight_update", "update_weight", "weight_sync",
                                                   "weight_broadcast"};

// Compute: faster kernels replace the operators the audit compared, matrix
// products, attention and norms first of all.
constexpr std::string_view kComputeKinds[] = {"compute"};
constexpr std::string_view kComputeWords[] = {"matmul", "gemm",    "linear",  "attention",
                                              "attn",   "flash",   "sdpa",    "softmax",
                                              "norm",   "logprob", "log_prob"};

// Why each row relates its kinds to its words: the comments above.
constexpr AuditLinkRule kRules[] = {
    {"A1", kCommunicationKinds, kCollectiveWords},
    {"A2", kElementwiseKinds, kElementwiseWords},
    {"A3", kWeightSyncKinds, kWeightUpdateWords},
    {"A4", kComputeKinds, kComputeWords},
};

// Lower case, "-" and " " as "_": "Custom-AllReduce" finds "custom_allreduce".
std::string Normalized(std::string_view text) {
  std::string out;
  for (const char c : text) {
    out += (c == '-' || c == ' ') ? '_'
                                  : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// The first word of `rule` in the entry's operator or backend id; empty when none.
std::string_view MatchedWord(const AuditLinkRule& rule, const VimeAuditEntry& entry) {
  const std::string operator_name = Normalized(entry.operator_name.value_or(""));
  const std::string backend_id = Normalized(entry.backend_id.value_or(""));
  for (const std::string_view word : rule.words) {
    if (operator_name.find(word) != std::string::npos) return word;
    if (backend_id.find(word) != std::string::npos) return word;
  }
  return {};
}

bool Relates(const AuditLinkRule& rule, std::string_view kind) {
  return std::find(rule.kinds.begin(), rule.kinds.end(), kind) != rule.kinds.end();
}

bool WorseFirst(const CandidateAuditLink& a, const CandidateAuditLink& b) {
  if (a.entry.status != b.entry.status) return a.entry.status > b.entry.status;
  return a.entry.max_abs_dlogp.value_or(-1) > b.entry.max_abs_dlogp.value_or(-1);
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

std::string Figures(const VimeAuditEntry& entry) {
  std::string text(AuditStatusName(entry.status));
  if (entry.max_abs_dlogp) text += ", max |dlogp| " + Number(*entry.max_abs_dlogp);
  if (entry.dlogp_warnings > 0) text += ", dlogp warnings " + Number(entry.dlogp_warnings);
  if (entry.fallback) text += ", fallback";
  if (entry.strict_failure) text += ", strict failure";
  return text;
}

std::string RankText(const VimeAuditEntry& entry) {
  return entry.rank ? "rank " + std::to_string(*entry.rank) : "rank ?";
}

}  // namespace

std::span<const AuditLinkRule> AuditLinkRules() { return kRules; }

void LinkAudit(const VimeAudit& audit, std::vector<CandidateReport>& candidates) {
  for (CandidateReport& candidate : candidates) {
    CandidateAudit& linked = candidate.audit.emplace();
    linked.file = audit.file;
    for (const AuditLinkRule& rule : kRules) {
      if (!Relates(rule, candidate.kind)) continue;
      for (const VimeAuditEntry& entry : audit.entries) {
        const std::string_view word = MatchedWord(rule, entry);
        if (word.empty()) continue;
        linked.links.push_back({std::string(rule.id), std::string(word), entry});
        linked.drifted = linked.drifted || entry.status != AuditStatus::kPass;
      }
    }
    std::stable_sort(linked.links.begin(), linked.links.end(), WorseFirst);
  }
}

std::string AuditLinkText(const CandidateAuditLink& link) {
  const VimeAuditEntry& entry = link.entry;
  std::string text = link.rule_id + " " + link.matched + ": " + RankText(entry);
  if (entry.operator_name) text += " operator " + *entry.operator_name;
  if (entry.backend_id) text += ", backend " + *entry.backend_id;
  if (entry.contract_id) text += ", contract " + *entry.contract_id;
  return text + ": " + Figures(entry);
}

std::string AuditSummary(const CandidateReport& candidate) {
  if (!candidate.audit) return "";
  const CandidateAudit& audit = *candidate.audit;
  if (audit.links.empty()) return "audit: no audited operator relates";
  const VimeAuditEntry& worst = audit.links.front().entry;
  std::string text = audit.drifted ? "audit drift: " : "audit: ";
  text += worst.operator_name.value_or(worst.backend_id.value_or("")) + " on " + RankText(worst) +
          " (" + Figures(worst) + ")";
  if (audit.links.size() > 1) text += " +" + std::to_string(audit.links.size() - 1) + " more";
  return text;
}

}  // namespace vprof::reporter
