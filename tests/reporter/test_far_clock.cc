// A host whose clock reads 1970 among hosts of today: its processes' times sit
// some 1.7e18 ns from the others'. The sums of lateness and skew stop at the
// int64 range instead of overflowing, and the clock is named in a warning.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "cli_runner.h"
#include "mini_json.h"
#include "reporter/base/exit_status.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint64_t kToday = 1'700'000'000'000'000'000;  // Nov 2023, in ns since 1970
constexpr uint64_t kIn1970 = 1'000'000'000;
constexpr int kCollectives = 10;

void WriteRank(const std::string& directory, int32_t rank, uint64_t start_realtime_ns) {
  vprof::trace::RunHeader header = RankHeader("node" + std::to_string(rank), 10, rank);
  header.set_start_ns(1000);
  header.set_start_realtime_ns(start_realtime_ns);
  TraceFileBuilder trace(header);
  std::vector<vprof::trace::NcclEvent> events;
  for (int seq = 1; seq <= kCollectives; ++seq) {
    const uint64_t enter = 1000 + 1000 * static_cast<uint64_t>(seq);
    events.push_back(trace.Event("ncclAllReduce", 0xabc, 2, static_cast<uint32_t>(rank),
                                 static_cast<uint64_t>(seq), 4096, enter, enter + 500));
  }
  trace.AddBatch(events);
  trace.AddFooter();
  trace.WriteTo(directory + "/rank" + std::to_string(rank) + ".vtrace");
}

}  // namespace

TEST_CASE("a clock reading 1970 is named with its offset; lateness sums do not overflow") {
  ScratchDir dir;
  WriteRank(dir.path(), 0, kToday);
  WriteRank(dir.path(), 1, kIn1970);
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  CHECK(result.status == kExitOk);
  // (1.7e18 − 1e9) ns is 53.9 Julian years.
  CHECK(Contains(result.err,
                 "clock of rank1.vtrace (rank 1) 53.9 years behind the other "
                 "processes' (its start -1.7e+18 ns from the median)"));
  const JsonValue report = JsonValue::Parse(result.out);
  const JsonValue& far = report["time_source"]["far_clocks"];
  REQUIRE(far.array().size() == 1);
  CHECK(far[0]["file"].string() == "rank1.vtrace");
  CHECK(far[0]["rank"].number() == 1);
  CHECK(far[0]["from_median_ns"].number() ==
        -static_cast<double>(static_cast<int64_t>(kToday - kIn1970)));
  const JsonValue& ranks = report["ranks"];
  REQUIRE(ranks.array().size() == 2);
  // Rank 0 enters each collective 1.7e18 ns after rank 1: ten of them sum
  // past INT64_MAX, where the total stops (a wrapped total was negative).
  const double saturated_mean =
      std::round(static_cast<double>(std::numeric_limits<int64_t>::max()) / kCollectives);
  CHECK(ranks[0]["mean_lateness_ns"].number() == saturated_mean);
  CHECK(ranks[1]["mean_lateness_ns"].number() == 0);
}
