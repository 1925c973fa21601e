#include "reporter/render/candidate_json_report.h"

namespace vprof::reporter {
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
  json.Key("links");
  json.BeginArray();
  for (const CandidateAuditLink& link : audit.links) WriteAuditLink(json, link);
  json.EndArray();
  json.EndObject();
}

void WriteCandidate(JsonWriter& json, const CandidateReport& c) {
  json.BeginObject();
  json.Field("rank_order", c.rank_order);
  json.Field("kind", c.kind);
  json.Field("title", c.title);
  json.Field("change", c.change);
  json.Field("scope", CandidateScopeName(c.scope));
  json.Field("exposed_ns", c.exposed_ns);
  json.Field("step_share", c.step_share);
  json.Field("count", c.count);
  json.Field("total_ns", c.total_ns);
  json.Field("vprof_cost_ns", c.vprof_cost_ns);
  json.Key("evidence");
  json.BeginArray();
  for (const std::string& line : c.evidence) json.String(line);
  json.EndArray();
  json.Key("examples");
  json.BeginArray();
  for (const CandidateExample& example : c.examples) WriteExample(json, example);
  json.EndArray();
  json.Field("strict", StrictTagName(c.strict));
  json.Field("rule_id", c.rule_id);
  json.Field("rule", c.rule);
  json.Field("contract_declares", c.contract_declares);
  if (c.audit) WriteAudit(json, *c.audit);
  json.EndObject();
}

}  // namespace

void WriteCandidatesJson(JsonWriter& json, const Report& report) {
  json.Key("candidates");
  json.BeginArray();
  for (const CandidateReport& c : report.candidates) WriteCandidate(json, c);
  json.EndArray();
}

}  // namespace vprof::reporter
