#include "reporter/render/json/candidates_json.h"

#include "reporter/render/json/json_keys.h"

namespace vprof::reporter {

namespace keys = json_keys;

namespace {

void WriteExample(JsonWriter& json, const CandidateExample& example) {
  json.BeginObject();
  json.Field("rank", example.rank);
  json.Field("file", example.file);
  json.Field("id", example.id);
  json.Field("name", example.name);
  json.Field("start_ns", example.start_ns);
  json.Field("duration_ns", example.duration_ns);
  json.EndObject();
}

void WriteAuditLink(JsonWriter& json, const CandidateAuditLink& link) {
  const VimeAuditEntry& entry = link.entry;
  json.BeginObject();
  json.Field("rule_id", link.rule_id);
  json.Field("matched", link.matched);
  json.Field("rank", entry.rank);
  json.Field("operator", entry.operator_name);
  json.Field("backend_id", entry.backend_id);
  json.Field("contract_id", entry.contract_id);
  json.Field("status", AuditStatusName(entry.status));
  json.Field("max_abs_dlogp", entry.max_abs_dlogp);
  json.Field("dlogp_warnings", entry.dlogp_warnings);
  json.Field("fallback", entry.fallback);
  json.Field("strict_failure", entry.strict_failure);
  json.EndObject();
}

// Written only with --audit, so reports without one keep their keys.
void WriteAudit(JsonWriter& json, const CandidateAudit& audit) {
  json.Key("audit");
  json.BeginObject();
  json.Field("file", audit.file);
  json.Field("drifted", audit.drifted);
  json.Array("links", audit.links,
             [&](const CandidateAuditLink& link) { WriteAuditLink(json, link); });
  json.EndObject();
}

void WriteCandidate(JsonWriter& json, const CandidateReport& c) {
  json.BeginObject();
  json.Field(keys::candidate::kRankOrder, c.rank_order);
  json.Field(keys::candidate::kKind, c.kind);
  json.Field("title", c.title);
  json.Field(keys::candidate::kChange, c.change);
  json.Field("scope", CandidateScopeName(c.scope));
  json.Field("rank", c.rank);
  json.Field("phase", c.phase);
  json.Field("role", c.role);
  json.Field(keys::candidate::kExposedNs, c.exposed_ns);
  json.Field(keys::candidate::kStepShare, c.step_share);
  json.Field(keys::candidate::kCount, c.count);
  json.Field(keys::candidate::kTotalNs, c.total_ns);
  json.Field("vprof_cost_ns", c.vprof_cost_ns);
  json.Field("projected_saving_ns", c.projected_saving_ns);
  json.Field("projected_share", c.projected_share);
  json.Field("projection", c.projection);
  json.Field("projection_withheld", c.projection_withheld);
  json.Values("evidence", c.evidence);
  json.Array("examples", c.examples,
             [&](const CandidateExample& example) { WriteExample(json, example); });
  json.Field(keys::candidate::kStrict, StrictTagName(c.strict));
  json.Field("rule_id", c.rule_id);
  json.Field("rule", c.rule);
  json.Field("contract_declares", c.contract_declares);
  if (c.audit) WriteAudit(json, *c.audit);
  json.EndObject();
}

}  // namespace

void WriteCandidatesJson(JsonWriter& json, const Report& report) {
  json.Array(keys::report::kCandidates, report.candidates,
             [&](const CandidateReport& c) { WriteCandidate(json, c); });
}

}  // namespace vprof::reporter
