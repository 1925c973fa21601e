#include "reporter/render/json/candidates_json.h"

#include "reporter/model/report_figures.h"
#include "reporter/render/json/figures_json.h"
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
  WriteFigures<CandidateReport>(json, c, kCandidateFigures);
  json.Values("evidence", c.evidence);
  json.Array("examples", c.examples,
             [&](const CandidateExample& example) { WriteExample(json, example); });
  WriteFigures<CandidateReport>(json, c, kCandidateRuleFigures);
  if (c.audit) WriteAudit(json, *c.audit);
  json.EndObject();
}

}  // namespace

void WriteCandidatesJson(JsonWriter& json, const Report& report) {
  json.Array(keys::report::kCandidates, report.candidates,
             [&](const CandidateReport& c) { WriteCandidate(json, c); });
}

}  // namespace vprof::reporter
