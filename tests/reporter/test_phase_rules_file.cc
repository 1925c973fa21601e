// The user's NVTX phase rules (--phase-rules FILE): the file format and its
// errors (file and line named, exit 2), how user rules extend the defaults
// while their scope lives, and the "vprof.phase:<phase>" naming convention.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "cli_runner.h"
#include "mini_json.h"
#include "reporter/phases/phase_rules.h"
#include "reporter/phases/phase_rules_file.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

std::string PhaseOf(std::string_view name) {
  const auto rule = MatchPhaseRule(name);
  return rule ? std::string(rule->phase) : std::string("(none)");
}

std::string ErrorOf(const std::string& text) {
  const PhaseRulesLoad load = ParsePhaseRules(text, "rules.txt");
  CHECK_FALSE(load.rules);
  return load.error;
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("phase rules file: 'pattern = phase' lines, comments and blank lines skipped") {
  const PhaseRulesLoad load = ParsePhaseRules(
      "# vime's generation timer\n\n  Gen_Rollout =  rollout execution \nforward = train forward\n",
      "rules.txt");
  REQUIRE(load.rules);
  CHECK(load.error.empty());
  const std::vector<UserPhaseRule> expected = {{"gen_rollout", "rollout execution"},
                                               {"forward", "train forward"}};
  CHECK(*load.rules == expected);
}

TEST_CASE("phase rules file: bad lines are named by file and line") {
  CHECK(ErrorOf("a = b\njust words\n") == "rules.txt:2: expected 'pattern = phase', found no '='");
  CHECK(ErrorOf(" = logprob\n") == "rules.txt:1: the pattern before '=' is empty");
  CHECK(ErrorOf("# c\nlogp =   \n") == "rules.txt:2: the phase after '=' is empty");
  CHECK(ErrorOf("a = b = c\n") == "rules.txt:1: expected one '=' between pattern and phase");
  CHECK(ErrorOf("Gen = x\n\ngen = y\n") == "rules.txt:3: pattern 'gen' is already given on line 1");
  CHECK(ErrorOf("# only a comment\n") == "rules.txt: no rules ('pattern = phase' lines)");
  const PhaseRulesLoad missing = LoadPhaseRulesFile("/nonexistent/rules.txt");
  CHECK_FALSE(missing.rules);
  CHECK(missing.error ==
        "/nonexistent/rules.txt: cannot read: No such file or directory (the phase rules)");
}

TEST_CASE("phase rules: user rules extend the defaults while their scope lives") {
  CHECK(PhaseOf("gen_rollout") == "(none)");  // no default pattern starts it
  {
    const PhaseRulesScope scope(
        {{"gen_rollout", "generation"}, {"forward", "train forward"}, {"train", "training"}});
    CHECK(PhaseOf("gen_rollout #3") == "generation");
    // Same length as the default "forward": the user's wins.
    CHECK(PhaseOf("Forward") == "train forward");
    CHECK(PhaseOf("train") == "training");
    // The default "train_wait" is longer than the user's "train".
    CHECK(PhaseOf("train_wait") == "rollout wait");
    CHECK(PhaseOf("backward") == "backward");
    // The convention names the user's phases too.
    CHECK(PhaseOf("vprof.phase:train_forward") == "train forward");
  }
  CHECK(PhaseOf("gen_rollout") == "(none)");
  CHECK(PhaseOf("forward") == "forward");
}

TEST_CASE("phase rules: the vprof.phase:<phase> convention names any phase a rule names") {
  CHECK(PhaseOf("vprof.phase:weight_sync") == "weight sync");
  CHECK(PhaseOf("VPROF.PHASE:Rollout Execution") == "rollout execution");
  CHECK(PhaseOf("vprof.phase:rollout_wait") == "rollout wait");
  CHECK(PhaseOf("vprof.phase:logprob") == "logprob");
  CHECK(PhaseOf("vprof.phase:communication") == "communication");
  // Not a phase any rule names: the range stays unmatched, under its name.
  CHECK(PhaseOf("vprof.phase:reward_model") == "(none)");
  CHECK(PhaseOf("vprof.phase:") == "(none)");
}

namespace {

// One process with two NVTX ranges: "gen_rollout" 0-600 µs, "forward" 600-1000 µs.
void WriteNvtxTrace(const std::string& directory) {
  TraceFileBuilder trace("node1", 101, 0);
  vprof::trace::TracePacket packet;
  vprof::trace::NvtxBatch& batch = *packet.mutable_nvtx_batch();
  batch.set_tid(7);
  const auto add = [&](std::string_view name, uint64_t start_us, uint64_t end_us) {
    vprof::trace::NvtxRange& range = *batch.add_range();
    range.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
    range.set_name_iid(trace.Intern(name));
    range.set_start_ns(start_us * 1000);
    range.set_end_ns(end_us * 1000);
  };
  add("gen_rollout", 0, 600);
  add("forward", 600, 1000);
  trace.AddPacket(std::move(packet));
  trace.AddFooter();
  trace.WriteTo(directory + "/node1.101.vtrace");
}

}  // namespace

TEST_CASE("vprof report --phase-rules: the file's rules name the phases; a bad file exits 2") {
  ScratchDir dir;
  WriteNvtxTrace(dir.path());
  const std::string rules = dir.File("rules.txt");
  WriteText(rules, "gen_rollout = rollout execution\n");
  const CliResult report = Run({"report", dir.path(), "--format", "json", "--phase-rules", rules});
  CHECK(report.status == 0);
  const JsonValue json = JsonValue::Parse(report.out);
  const JsonValue& phases = json["phases"][0]["phases"];
  REQUIRE(phases.array().size() == 2);
  // 600 µs of the user's phase, then 400 µs of the default "forward".
  CHECK(phases[0]["phase"].string() == "rollout execution");
  CHECK_FALSE(phases[0]["unmatched"].boolean());
  CHECK(phases[0]["source"].string() == "nvtx");
  CHECK(phases[0]["total_ns"].number() == 6e5);
  CHECK(phases[1]["phase"].string() == "forward");

  // Without the file, the name stays unmatched; the scope ended with the command.
  const JsonValue plain = JsonValue::Parse(Run({"report", dir.path(), "--format", "json"}).out);
  CHECK(plain["phases"][0]["phases"][1]["phase"].string() == "gen_rollout");
  CHECK(plain["phases"][0]["phases"][1]["unmatched"].boolean());

  const std::string bad = dir.File("bad.txt");
  WriteText(bad, "gen_rollout = rollout execution\ngen_rollout\n");
  const CliResult refused = Run({"report", dir.path(), "--phase-rules", bad});
  CHECK(refused.status == 2);
  CHECK(refused.err == "vprof: report: bad --phase-rules file: " + bad +
                           ":2: expected 'pattern = phase', found no '='\n");
  CHECK(refused.out.empty());
}
