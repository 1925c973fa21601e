// The cross-rank GPU time of collectives: last kernel start to last kernel
// end over the ranks, counted once every rank's span arrived.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "reporter/base/duration_histogram.h"
#include "reporter/collectives/cross_rank_gpu_time.h"
#include "reporter/report/assemble.h"

using namespace vprof::reporter;

namespace {

const OpKey kRow{0x77, NcclFunction::kAllReduce, BucketOf(4096)};

CollectiveKernelSpan Span(uint64_t seq, uint32_t rank, int64_t start, int64_t end,
                          uint32_t size = 2) {
  return CollectiveKernelSpan{kRow, seq, rank, size, start, end};
}

}  // namespace

TEST_CASE("a collective counts from the last rank's start to the last end") {
  CrossRankGpuTime time;
  // seq 1: rank 0 starts at 100 and waits for rank 1 (starts 180); both end
  // near 200: the collective took 210 − 180 = 30, not rank 0's 100.
  time.Add(Span(1, 0, 100, 200));
  CHECK(time.totals().empty());
  time.Add(Span(1, 1, 180, 210));
  // seq 2: rank 1 first this time: 400..450 and 420..455 → 455 − 420 = 35.
  time.Add(Span(2, 1, 400, 450));
  time.Add(Span(2, 0, 420, 455));
  REQUIRE(time.totals().size() == 1);
  const CrossRankTotals& totals = time.totals().at(kRow);
  CHECK(totals.collectives == 2);
  CHECK(totals.total_ns == 30 + 35);
  CHECK(time.incomplete() == 0);
}

TEST_CASE("a rank's second span does not complete a collective") {
  CrossRankGpuTime time;
  time.Add(Span(5, 0, 0, 10));
  time.Add(Span(5, 0, 0, 10));
  CHECK(time.totals().empty());
  CHECK(time.incomplete() == 1);
}

TEST_CASE("collectives one rank never sends are given up beyond the cap") {
  CrossRankGpuTime time;
  // Rank 1 has no GPU records: every seq waits. The table stays at the cap,
  // and what it gave up is counted with what is still waiting.
  const uint64_t n = CrossRankGpuTime::kMaxPending + 10;
  for (uint64_t seq = 0; seq < n; ++seq) time.Add(Span(seq, 0, 0, 10));
  CHECK(time.incomplete() == n);
  // The newest ones are still there: rank 1's span for the last seq completes it.
  time.Add(Span(n - 1, 1, 5, 20));
  CHECK(time.totals().at(kRow).collectives == 1);
  CHECK(time.totals().at(kRow).total_ns == 20 - 5);
  // The oldest were given up: rank 1's span for seq 0 starts a new entry.
  time.Add(Span(0, 1, 5, 20));
  CHECK(time.totals().at(kRow).collectives == 1);
}

TEST_CASE("the median holds within half a percent, whatever the spread") {
  DurationHistogram histogram;
  CHECK_FALSE(histogram.Median());
  // 1,001 durations 1,000..2,000 ns: the lower median is the 501st, 1,500 ns.
  for (int64_t ns = 2000; ns >= 1000; --ns) histogram.Add(ns);
  REQUIRE(histogram.Median());
  CHECK(histogram.count() == 1001);
  CHECK(std::abs(*histogram.Median() - 1500) <= 1500 * 0.005);
  // An outlier of a second moves the mean by a millisecond, the median not at all.
  histogram.Add(1'000'000'000);
  histogram.Add(0);  // a zero-length span sorts first
  CHECK(std::abs(*histogram.Median() - 1500) <= 1500 * 0.005);
  DurationHistogram zeros;
  zeros.Add(0);
  zeros.Add(-5);
  zeros.Add(7);
  CHECK(zeros.Median() == 0);  // 2nd of {-5→0, 0, 7}
}

TEST_CASE("a row's busbw comes from the median cross-rank time") {
  CrossRankGpuTime time;
  // Four all-reduces of 4 KiB on 2 ranks: cross-rank times 10,000, 10,000, 10,000 ns and a
  // first call of 90,000 ns (connection setup). Mean 30,000 ns; median 10,000 ns.
  const int64_t times[] = {90'000, 10'000, 10'000, 10'000};
  for (uint64_t seq = 0; seq < 4; ++seq) {
    const int64_t start = static_cast<int64_t>(seq) * 1'000'000;
    time.Add(Span(seq, 0, start, start + times[seq]));
    time.Add(Span(seq, 1, start, start + times[seq]));
  }
  Report report;
  CommunicatorReport comm;
  comm.comm_id = 0x77;
  OpReport row;
  row.op = "ncclAllReduce";
  row.bucket = BucketOf(4096);
  row.count = 4;
  row.total_bytes = 4 * 4096;
  row.bus_factor = 1.0;  // 2 (n − 1) / n for n = 2
  comm.ops.push_back(row);
  report.communicators.push_back(comm);
  AddCollectiveGpuTime(time.totals(), report);
  const OpReport& out = report.communicators[0].ops[0];
  CHECK(out.collective_gpu_calls == 4);
  CHECK(out.collective_gpu_mean_ns == 30'000);
  REQUIRE(out.collective_gpu_median_ns);
  CHECK(std::abs(*out.collective_gpu_median_ns - 10'000) <= 50);
  // busbw = 4,096 B / median × bus factor: 4096 / 10,000 ns = 0.4096 GB/s, within the
  // median's 0.5%.
  REQUIRE(out.collective_busbw_gbps);
  CHECK(*out.collective_busbw_gbps == Approx(0.4096).epsilon(0.006));
}
