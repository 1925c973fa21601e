// The options of `vprof run` and `vprof slurm`.
#include <catch2/catch.hpp>
#include <sstream>

#include "reporter/launch_options.h"

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
  const auto options = Parse({"--output", "d", "--flush-ms=50", "--buffer-kb", "64",
                              "--start-after", "1.5", "--stop-after", "9", "--log-level", "info",
                              "--report", "--report-format", "json", "--", "python3", "-c", "1"},
                             &err);
  REQUIRE(options);
  CHECK(options->output == "d");
  CHECK(options->settings == std::map<std::string, std::string>{{"VPROF_BUFFER_KB", "64"},
                                                                {"VPROF_FLUSH_MS", "50"},
                                                                {"VPROF_LOG_LEVEL", "info"},
                                                                {"VPROF_START_AFTER_S", "1.5"},
                                                                {"VPROF_STOP_AFTER_S", "9"}});
  CHECK(options->report);
  CHECK(options->json_report);
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
