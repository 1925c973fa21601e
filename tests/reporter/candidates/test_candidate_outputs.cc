// The "Fast-path candidates" text section and the "candidates" JSON array,
// on the hand-built report of candidate_fixture.h.
#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "candidate_fixture.h"
#include "reporter/base/text_layout.h"
#include "reporter/candidates/rank_candidates.h"
#include "reporter/render/json/candidates_json.h"
#include "reporter/render/text/candidates_text.h"
#include "tests/reporter/mini_json.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

Report Ranked() {
  Report report = StepsFixture();
  report.candidates = RankCandidates(report, std::nullopt);
  return report;
}

std::string TextOf(const Report& report) {
  std::ostringstream out;
  WriteCandidatesText(report, out);
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// The table row whose first cell is `order`.
std::vector<std::string> Row(const std::string& text, const std::string& order) {
  for (const std::string& line : Lines(text)) {
    const std::vector<std::string> words = Words(line);
    if (!words.empty() && words[0] == order && line.rfind("  ", 0) == 0) return words;
  }
  FAIL("no table row " << order);
  return {};
}

JsonValue JsonOf(const Report& report) {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  WriteCandidatesJson(json, report);
  json.EndObject();
  return JsonValue::Parse(out.str());
}

}  // namespace

TEST_CASE("the text section: heading, one row per candidate, evidence and rules") {
  const std::string text = TextOf(Ranked());
  INFO(text);
  CHECK(text.find("\nFast-path candidates, steps 1-2 of 2 (none left out):\n") == 0);
  // time and share per step: 30 ms of the 100 ms mean step, and so on.
  CHECK(Row(text, "1") == std::vector<std::string>{"1", "tp_communication", "full_step", "30.0",
                                                   "ms", "30.0%", "-", "needs_contract", "S3"});
  CHECK(Row(text, "2") == std::vector<std::string>{"2", "host_idle", "full_step", "20.0", "ms",
                                                   "20.0%", "-", "eligible", "S2"});
  CHECK(Row(text, "3") == std::vector<std::string>{"3", "compute", "full_step", "49.0", "ms",
                                                   "49.0%", "-", "not_eligible", "S14"});
  CHECK(Row(text, "4") == std::vector<std::string>{"4", "launch_bound_kernels", "operator", "5.00",
                                                   "ms", "-", "-", "eligible", "S1"});
  // The wrapped lines joined again: each candidate says where its time is.
  const std::string joined = std::regex_replace(text, std::regex("\n +"), " ");
  CHECK(joined.find("1. Tensor-parallel collectives not hidden behind compute (full_step, 30.0 "
                    "ms per step; rank 1, in forward, at tensor parallel)") != std::string::npos);
  CHECK(joined.find("2. GPU idle until the host launched the next work (full_step, 20.0 ms per "
                    "step; rank 1, in forward)") != std::string::npos);
  CHECK(text.find("total 0 ns") == std::string::npos);
  CHECK(joined.find("example: rank 1 correlation:103 ncclAllReduce of 1.00 MiB on comm 0xa, 16.0 "
                    "ms exposed (16.0 ms)") != std::string::npos);
  CHECK(text.find("strict needs_contract: S3 custom_allreduce: ") != std::string::npos);
  CHECK(text.find("strict eligible: S1 fuse_elementwise_same_order: ") != std::string::npos);
  for (const std::string& line : Lines(text)) {
    INFO(line);
    CHECK(DisplayWidth(line) <= kTextWidth);
  }
}

TEST_CASE("the text section says when there are no candidates") {
  const std::string text = TextOf(Report{});
  CHECK(text.rfind("\nFast-path candidates: none", 0) == 0);
  for (const std::string& line : Lines(text)) CHECK(DisplayWidth(line) <= kTextWidth);
}

TEST_CASE("the JSON candidates: documented keys and the ranked values") {
  const JsonValue json = JsonOf(Ranked());
  const JsonValue::Array& candidates = json["candidates"].array();
  REQUIRE(candidates.size() == 4);

  const JsonValue& tp = candidates[0];
  std::set<std::string> keys;
  for (const auto& [key, value] : tp.object()) keys.insert(key);
  CHECK(keys == std::set<std::string>{"rank_order",
                                      "kind",
                                      "title",
                                      "change",
                                      "scope",
                                      "rank",
                                      "phase",
                                      "role",
                                      "exposed_ns",
                                      "step_share",
                                      "count",
                                      "total_ns",
                                      "vprof_cost_ns",
                                      "projected_saving_ns",
                                      "projected_share",
                                      "replayed_saving_ns",
                                      "projection",
                                      "projection_withheld",
                                      "evidence",
                                      "examples",
                                      "strict",
                                      "rule_id",
                                      "rule",
                                      "contract_declares"});
  CHECK(tp["rank_order"].number() == 1);
  CHECK(tp["kind"].string() == "tp_communication");
  CHECK(tp["change"].string() == "custom_allreduce");
  CHECK(tp["scope"].string() == "full_step");
  CHECK(tp["rank"].number() == 1);
  CHECK(tp["phase"].string() == "forward");
  CHECK(tp["role"].string() == "tensor parallel");
  CHECK(tp["exposed_ns"].number() == 30e6);
  CHECK(tp["step_share"].number() == Approx(0.3));
  CHECK(tp["total_ns"].number() == 30e6);
  CHECK(tp["strict"].string() == "needs_contract");
  CHECK(tp["rule_id"].string() == "S3");
  CHECK(tp["rule"].string().rfind("S3 custom_allreduce: ", 0) == 0);
  CHECK_FALSE(tp["contract_declares"].boolean());
  CHECK_FALSE(tp["evidence"].array().empty());
  const JsonValue& example = tp["examples"][0];
  CHECK(example["rank"].number() == 1);
  CHECK(example["file"].string() == "rank1.vtrace");
  CHECK(example["id"].string() == "correlation:103");
  CHECK(example["start_ns"].number() == 100e6);
  CHECK(example["duration_ns"].number() == 16e6);

  const JsonValue& launch = candidates[3];
  CHECK(launch["scope"].string() == "operator");
  CHECK(launch["step_share"].is_null());
  CHECK(launch["rank"].is_null());
  CHECK(launch["strict"].string() == "eligible");
  CHECK(launch["examples"].array().empty());
}

TEST_CASE("the JSON report has an empty candidates array when there are none") {
  CHECK(JsonOf(Report{})["candidates"].array().empty());
}

TEST_CASE("a projection: its saving in the table, its change and share below, in JSON") {
  Report report = Ranked();
  CandidateReport& tp = report.candidates[0];
  tp.projected_saving_ns = 12'500'000;
  tp.projected_share = 0.125;
  tp.projection = "its collectives' transfer 2x faster";
  report.candidates[1].projection_withheld = "the unchanged replay is off by 9.0%";
  const std::string text = TextOf(report);
  INFO(text);
  CHECK(Row(text, "1")[6] == "12.5");
  CHECK(Row(text, "1")[7] == "ms");
  const std::string joined = std::regex_replace(text, std::regex("\n +"), " ");
  CHECK(joined.find("fixing it: saves 12.5 ms per step (12.5%), projected with its collectives' "
                    "transfer 2x faster") != std::string::npos);
  CHECK(joined.find("fixing it: saving not projected: the unchanged replay is off by 9.0%") !=
        std::string::npos);
  const JsonValue json = JsonOf(report);
  CHECK(json["candidates"][0]["projected_saving_ns"].number() == 12.5e6);
  CHECK(json["candidates"][0]["projected_share"].number() == Approx(0.125));
  CHECK(json["candidates"][1]["projected_saving_ns"].is_null());
  CHECK(json["candidates"][1]["projection_withheld"].string() ==
        "the unchanged replay is off by 9.0%");
}
