// `vprof export --steps`: what a timeline holds of the steps the report
// numbers, on a run whose steps are named by the program ("ProfilerStep#k").
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_runner.h"
#include "mini_json.h"
#include "reporter/base/exit_status.h"
#include "scratch_dir.h"
#include "step_trace.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// Two ranks, five steps each at k*1000 µs: range "ProfilerStep#k" [o, o+300],
// a gemm launched at o+10 running [o+100, o+200].
void WriteRun(const std::string& directory) {
  for (int32_t rank = 0; rank < 2; ++rank) {
    StepTrace trace("node1", 100 + static_cast<uint32_t>(rank), rank, 0xABC);
    for (int64_t k = 0; k < 5; ++k) {
      const int64_t o = k * 1000;
      trace.Range("ProfilerStep#" + std::to_string(k), o, o + 300);
      trace.Kernel(kGemmKernel, 7, o + 10, o + 100, o + 200);
    }
    trace.WriteTo(directory + "/rank" + std::to_string(rank) + ".vtrace");
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("export --steps keeps what overlaps those steps, numbered as the program numbered them") {
  ScratchDir dir;
  WriteRun(dir.path());
  const CliResult result =
      Run({"export", "--format", "chrome", "--steps", "2-3", "-o", dir.File("t.json"), dir.path()});
  REQUIRE(result.status == kExitOk);
  CHECK(Contains(result.err, "vprof: export of steps 2-3:"));
  const JsonValue document = JsonValue::Parse(ReadFile(dir.File("t.json")));
  std::map<double, std::vector<double>> gemm_starts;  // by pid
  std::map<std::string, int> ranges;
  for (const JsonValue& event : document["traceEvents"].array()) {
    if (event["ph"].string() != "X") continue;
    if (event["cat"].string() == "kernel") {
      gemm_starts[event["pid"].number()].push_back(event["ts"].number());
    }
    if (event["cat"].string() == "nvtx") ++ranges[event["name"].string()];
  }
  // The gemms of steps 2 and 3 on both ranks, 1000 µs apart; no other.
  REQUIRE(gemm_starts.size() == 2);
  for (auto& [pid, starts] : gemm_starts) {
    REQUIRE(starts.size() == 2);
    std::sort(starts.begin(), starts.end());
    CHECK(starts[1] - starts[0] == Approx(1000.0));
  }
  CHECK(ranges == std::map<std::string, int>{{"ProfilerStep#2", 2}, {"ProfilerStep#3", 2}});
  CHECK(document["vprofExport"]["selection"].string() == "steps 2-3");

  // Steps the report did not measure: a failure that names the ones it did.
  const CliResult beyond =
      Run({"export", "--format", "chrome", "--steps", "9", "-o", dir.File("u.json"), dir.path()});
  CHECK(beyond.status == kExitFailure);
  CHECK(Contains(beyond.err, "--steps 9: the measured steps of " + dir.path() + " are "));
}
