// The options of `vprof run` and `vprof slurm`.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "launch/launch_options.h"
#include "reporter/base/arg_cursor.h"
#include "scratch_dir.h"

using namespace vprof::reporter;

namespace {

std::optional<LaunchOptions> Parse(const std::vector<std::string>& args, std::string* err) {
  std::ostringstream messages;
  std::optional<LaunchOptions> options = ParseLaunchOptions(args, "run", messages);
  *err = messages.str();
  return options;
}

}  // namespace

TEST_CASE("each setting option becomes its VPROF_* variable") {
  std::string err;
  const auto options =
      Parse({"--output",      "d",      "--flush-ms=50", "--buffer-kb", "64",
             "--start-after", "1.5",    "--stop-after",  "9",           "--log-level",
             "info",          "--deep", "5/60",          "--report",    "--report-format",
             "json",          "--",     "python3",       "-c",          "1"},
            &err);
  REQUIRE(options);
  CHECK(options->output == "d");
  CHECK(options->settings == std::map<std::string, std::string>{{"VPROF_BUFFER_KB", "64"},
                                                                {"VPROF_DEEP", "5/60"},
                                                                {"VPROF_FLUSH_MS", "50"},
                                                                {"VPROF_LOG_LEVEL", "info"},
                                                                {"VPROF_START_AFTER_S", "1.5"},
                                                                {"VPROF_STOP_AFTER_S", "9"}});
  CHECK(options->report);
  CHECK(options->report_format == ReportFormat::kJson);
  CHECK(options->command == std::vector<std::string>{"python3", "-c", "1"});
}

TEST_CASE("the command starts at the first argument that is not an option") {
  std::string err;
  const auto options = Parse({"--force", "torchrun", "--nproc-per-node", "8", "train.py"}, &err);
  REQUIRE(options);
  CHECK(options->force);
  CHECK(options->command ==
        std::vector<std::string>{"torchrun", "--nproc-per-node", "8", "train.py"});
}

TEST_CASE("values libvprof would reject are refused before the command starts") {
  std::string err;
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--flush-ms", "5"},
                                                               {"--flush-ms", "1e3"},
                                                               {"--buffer-kb", "-16"},
                                                               {"--buffer-kb", "16385"},
                                                               {"--deep", "60/5"},
                                                               {"--deep", "sometimes"},
                                                               {"--stop-after", "soon"},
                                                               {"--log-level", "loud"},
                                                               {"--report-format", "xml"},
                                                               {"--colour"},
                                                               {"--output"}}) {
    CAPTURE(bad);
    CHECK_FALSE(Parse(bad, &err));
    CHECK(err.starts_with("vprof: run: "));
  }
  Parse({"--flush-ms", "5"}, &err);
  CHECK(err.find("10 to 600000") != std::string::npos);
}

TEST_CASE("the report's step and phase options, and the same as arguments for other nodes") {
  vprof::reporter::testing::ScratchDir dir;
  const std::string rules = dir.path() + "/rules.txt";
  std::ofstream(rules) << "my_fwd = forward\n";
  std::string err;
  const auto options = Parse({"--report", "--step-pattern", "^iter$", "--step-pattern", "train",
                              "--warmup", "3", "--phase-rules", rules, "--", "python3", "t.py"},
                             &err);
  INFO(err);
  REQUIRE(options);
  const AnalysisOptions& analysis = options->report_analysis;
  CHECK(analysis.steps.patterns == std::vector<std::string>{"^iter$", "train"});
  CHECK(analysis.steps.warmup_steps == 3);
  CHECK(analysis.phase_rules == std::vector<UserPhaseRule>{{"my_fwd", "forward"}});
  CHECK(analysis.phase_rules_file == rules);
  CHECK(options->command == std::vector<std::string>{"python3", "t.py"});

  // What vprof-slurm hands each node's `vprof report --node-summary`.
  const std::vector<std::string> arguments = AnalysisArguments(analysis);
  CHECK(arguments == std::vector<std::string>{"--step-pattern", "^iter$", "--step-pattern", "train",
                                              "--warmup", "3", "--phase-rules", rules});
  std::ostringstream messages;
  ArgCursor cursor(arguments, "report", messages);
  AnalysisOptions again;
  while (cursor.Next()) REQUIRE(TakeAnalysisOption(cursor, again) == OptionUse::kTaken);
  CHECK(again.steps.patterns == analysis.steps.patterns);
  CHECK(again.steps.warmup_steps == 3);
  CHECK(again.phase_rules == analysis.phase_rules);

  // A step pattern that is no regular expression is refused before the command starts.
  CHECK_FALSE(Parse({"--report", "--step-pattern", "(", "python3"}, &err));
  CHECK(err.find("--step-pattern") != std::string::npos);
}
