// The scale benchmark's generator writes what it says it writes, and the
// reporter counts every generated event and matches every collective.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/scale/scale_trace_generator.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"

namespace vprof::bench {
namespace {

using vprof::reporter::ClockChoice;
using vprof::reporter::GatherTraces;
using vprof::reporter::InputState;
using vprof::reporter::ListTraceFiles;

TEST_CASE("generated traces: the reporter counts every generated event") {
  vprof::reporter::testing::ScratchDir dir;
  // 4 ranks, 2 per host: 2 hosts. Communicators: world (4 ranks, 1 all-reduce
  // a step), one per host (2 ranks, 4 all-reduces), one per local rank across
  // hosts (2 ranks, a reduce-scatter and an all-gather): 1 + 4 + 2 = 7
  // collectives per rank and step.
  // Events per step: 7 × 3 (call, launch API, kernel) + 40 × 2 (compute kernel
  // and launch) + 2 × 2 (copy and its API) + 4 NVTX ranges = 21 + 80 + 4 + 4 = 109.
  // 1,000 events asked → ceil(1000 / 109) = 10 steps → 1,090 events per rank.
  const ScaleShape shape{.ranks = 4, .events_per_rank = 1000, .ranks_per_host = 2, .seed = 7};
  const GeneratedTraces written = WriteScaleTraces(dir.path(), shape);
  CHECK(written.files == 4);
  CHECK(written.events == 4 * 1090);

  const auto listed = ListTraceFiles(dir.path());
  REQUIRE(listed.paths.size() == 4);
  const auto gathered = GatherTraces(listed.paths, ClockChoice::kByHosts);
  CHECK(gathered.time_source.aligned_to_realtime);  // two hosts
  CHECK(gathered.time_source.unaligned_processes == 0);
  uint64_t events = 0;
  for (const auto& record : gathered.records) {
    CHECK(record.state == InputState::kWhole);
    CHECK(record.nccl_events == 70);              // 7 × 10 steps
    CHECK(record.gpu.kernels.count == 470);       // (7 + 40) × 10
    CHECK(record.gpu.api_calls == 490);           // (7 + 40 + 2) × 10
    CHECK(record.gpu.memcpy.count == 20);         // 2 × 10
    CHECK(record.nvtx_phases.ranges == 40);       // 4 × 10
    CHECK(record.gpu.nccl.linked_kernels == 70);  // every NCCL kernel tied to its call
    events += record.nccl_events + record.gpu.kernels.count + record.gpu.api_calls +
              record.gpu.memcpy.count + record.nvtx_phases.ranges;
  }
  CHECK(events == 4 * 1090);
  // Every member reported every collective: none left half-seen. Matched
  // collectives: world 10 + per host 2 hosts × 40 + per local rank 2 × 20 = 130.
  CHECK(gathered.pending.empty());
  uint64_t matched = 0;
  for (const auto& [key, op] : gathered.stats.ops()) matched += op.count;
  CHECK(matched == 130);
}

std::string Contents(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

TEST_CASE("generated traces: the same seed writes the same bytes") {
  vprof::reporter::testing::ScratchDir first, second;
  const ScaleShape shape{.ranks = 2, .events_per_rank = 300, .ranks_per_host = 1, .seed = 3};
  WriteScaleTraces(first.path(), shape);
  WriteScaleTraces(second.path(), shape);
  for (const char* name : {"/node0.10000.vtrace", "/node1.10001.vtrace"}) {
    const std::string bytes = Contents(first.path() + name);
    CHECK(!bytes.empty());
    CHECK(bytes == Contents(second.path() + name));
  }
}

}  // namespace
}  // namespace vprof::bench
