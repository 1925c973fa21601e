#include "reporter/candidates/candidate_json_report.h"

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
