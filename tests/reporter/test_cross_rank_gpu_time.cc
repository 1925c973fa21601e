// The cross-rank GPU time of collectives: last kernel start to last kernel
// end over the ranks, counted once every rank's span arrived.
#include <catch2/catch.hpp>

#include "reporter/cross_rank_gpu_time.h"

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
