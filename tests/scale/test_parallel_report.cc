// The report built on several threads is the one built on one: the traces
// read ahead by ReadAhead's workers and the steps replayed by ParallelFor
// give the same JSON bytes for any thread count. Run under ThreadSanitizer
// too (scripts/test.sh), which would flag a record read by two threads.
#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/scale/scale_trace_generator.h"
#include "reporter/base/parallel_for.h"
#include "reporter/node_summary/node_summary.h"
#include "reporter/render/json/json_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"

namespace vprof::reporter {
namespace {

std::string JsonReportOf(const std::string& directory, unsigned jobs) {
  const auto listed = ListTraceFiles(directory);
  const Report report = BuildReport(directory, listed.paths, {}, {}, {}, jobs);
  std::ostringstream out;
  WriteJsonReport(report, out);
  return out.str();
}

TEST_CASE("a report built on 1, 3 and 8 threads is the same bytes") {
  testing::ScratchDir dir;
  // 12 ranks, 3 to a host: 4 hosts, so clocks are aligned as well.
  const vprof::bench::ScaleShape shape{
      .ranks = 12, .events_per_rank = 3000, .ranks_per_host = 3, .seed = 11};
  vprof::bench::WriteScaleTraces(dir.path(), shape);
  const std::string one = JsonReportOf(dir.path(), 1);
  REQUIRE(one.find("\"steps_found\"") != std::string::npos);
  CHECK(JsonReportOf(dir.path(), 3) == one);
  CHECK(JsonReportOf(dir.path(), 8) == one);
}

std::string NodeSummaryOf(const std::string& directory, unsigned jobs) {
  const std::string out = directory + "/node" + std::to_string(jobs) + ".vsummary";
  const auto listed = ListTraceFiles(directory);
  REQUIRE(WriteNodeSummary(directory, "scale", listed.paths, ClockChoice::kRealtime, {}, out, jobs)
              .error.empty());
  std::ifstream in(out, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("a node summary written on 1 and 4 threads is the same bytes") {
  testing::ScratchDir dir;
  const vprof::bench::ScaleShape shape{
      .ranks = 6, .events_per_rank = 2000, .ranks_per_host = 6, .seed = 5};
  vprof::bench::WriteScaleTraces(dir.path(), shape);
  const std::string one = NodeSummaryOf(dir.path(), 1);
  REQUIRE(one.size() > 1000);
  CHECK(NodeSummaryOf(dir.path(), 4) == one);
}

TEST_CASE("ParallelFor runs each index once and rethrows a body's exception") {
  for (const unsigned jobs : {1u, 2u, 5u}) {
    std::vector<std::atomic<int>> runs(1000);
    ParallelFor(jobs, runs.size(), [&](size_t i) { ++runs[i]; });
    int once = 0;
    for (const auto& each : runs) once += each == 1;
    CHECK(once == 1000);
  }
  CHECK_THROWS_WITH(ParallelFor(4, 100,
                                [](size_t i) {
                                  if (i == 37) throw std::runtime_error("body 37");
                                }),
                    "body 37");
}

}  // namespace
}  // namespace vprof::reporter
