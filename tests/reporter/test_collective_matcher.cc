// Matching ranks' calls into collectives and timing them.
#include <catch2/catch.hpp>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/collectives/collective_timing.h"

using namespace vprof::reporter;

namespace {

CollectiveCall AllReduce(uint64_t seq, uint32_t rank, int64_t enter, int64_t exit) {
  return CollectiveCall{0xc0ffee,
                        seq,
                        NcclFunction::kAllReduce,
                        4,
                        std::nullopt,
                        4096,
                        Arrival{rank + 10, rank, enter, exit}};
}

CollectiveCall PointToPoint(NcclFunction function, uint32_t self, int32_t peer, uint64_t seq,
                            uint64_t bytes) {
  return CollectiveCall{0xc0ffee, seq, function, 4, peer, bytes, Arrival{self, self, 100, 200}};
}

}  // namespace

TEST_CASE("timing of 4 ranks with known enter and exit times") {
  // Rank 2 arrives last (at 1300) and everyone leaves by 1900: time 600.
  const std::vector<Arrival> arrivals = {
      {0, 0, 1000, 1850}, {1, 1, 1100, 1900}, {2, 2, 1300, 1880}, {3, 3, 1050, 1860}};
  const CollectiveTiming timing = MeasureCollective(arrivals);
  CHECK(timing.time_ns == 1900 - 1300);
  CHECK(timing.arrival_skew_ns == 1300 - 1000);
  CHECK(timing.exit_skew_ns == 1900 - 1850);
  CHECK(timing.first_enter_ns == 1000);
  CHECK(arrivals[timing.last_arrival].comm_rank == 2);
  // Rank 1 was the next latest: rank 2 alone held the others 200 ns.
  CHECK(timing.last_lead_ns == 1300 - 1100);
}

TEST_CASE("the last rank's lead is 0 on a tie and with one member") {
  const std::vector<Arrival> tie = {{0, 3, 500, 600}, {1, 1, 500, 600}, {2, 0, 400, 600}};
  CHECK(MeasureCollective(tie).last_lead_ns == 0);
  const std::vector<Arrival> alone = {{0, 0, 700, 900}};
  CHECK(MeasureCollective(alone).last_lead_ns == 0);
}

TEST_CASE("a tie for last arrival goes to the lowest comm rank") {
  const std::vector<Arrival> arrivals = {{0, 3, 500, 600}, {1, 1, 500, 600}, {2, 0, 400, 600}};
  CHECK(arrivals[MeasureCollective(arrivals).last_arrival].comm_rank == 1);
}

TEST_CASE("a collective completes when every member has reported it") {
  CollectiveMatcher matcher(4);
  CHECK_FALSE(matcher.Add(AllReduce(1, 0, 1000, 1850)));
  CHECK_FALSE(matcher.Add(AllReduce(1, 1, 1100, 1900)));
  CHECK_FALSE(matcher.Add(AllReduce(2, 0, 2000, 2100)));  // the next one, interleaved
  CHECK_FALSE(matcher.Add(AllReduce(1, 1, 1100, 1900)));  // a repeat does not count
  CHECK_FALSE(matcher.Add(AllReduce(1, 2, 1300, 1880)));
  CHECK(matcher.pending_count() == 2);
  const auto matched = matcher.Add(AllReduce(1, 3, 1050, 1860));
  REQUIRE(matched);
  CHECK(matched->op == NcclFunction::kAllReduce);
  CHECK(matched->comm_size == 4);
  CHECK(matched->size_bytes == 4096);
  REQUIRE(matched->arrivals.size() == 4);
  CHECK(matched->arrivals[3].process == 13);
  CHECK(matcher.pending_count() == 1);

  const std::vector<PendingCollective> pending = matcher.TakePending();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].seq == 2);
  CHECK(pending[0].seen_ranks == std::vector<uint32_t>{0});
  CHECK_FALSE(pending[0].sender_receiver);
  CHECK(matcher.pending_count() == 0);
}

TEST_CASE("the n-th send to a peer pairs with the peer's n-th recv from it") {
  CollectiveMatcher matcher(4);
  // Rank 0 sends twice to rank 1; a send from 1 to 0 with seq 1 is another pair.
  CHECK_FALSE(matcher.Add(PointToPoint(NcclFunction::kSend, 0, 1, 1, 1000)));
  CHECK_FALSE(matcher.Add(PointToPoint(NcclFunction::kSend, 0, 1, 2, 2000)));
  CHECK_FALSE(matcher.Add(PointToPoint(NcclFunction::kSend, 1, 0, 1, 3000)));
  CHECK_FALSE(matcher.Add(PointToPoint(NcclFunction::kSend, 0, 1, 1, 1000)));  // a repeat
  const auto second = matcher.Add(PointToPoint(NcclFunction::kRecv, 1, 0, 2, 2000));
  REQUIRE(second);
  CHECK(second->op == NcclFunction::kSendRecvPair);
  CHECK(second->size_bytes == 2000);
  CHECK(second->arrivals.size() == 2);
  const auto reverse = matcher.Add(PointToPoint(NcclFunction::kRecv, 0, 1, 1, 3000));
  REQUIRE(reverse);
  CHECK(reverse->size_bytes == 3000);

  // A recv read before its send: the pair's size is still the sender's.
  CHECK_FALSE(matcher.Add(PointToPoint(NcclFunction::kRecv, 3, 2, 1, 7)));
  const auto late_send = matcher.Add(PointToPoint(NcclFunction::kSend, 2, 3, 1, 4096));
  REQUIRE(late_send);
  CHECK(late_send->size_bytes == 4096);

  const auto pending = matcher.TakePending();
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].seq == 1);
  CHECK(pending[0].sender_receiver == std::make_pair(0u, 1u));
  CHECK(pending[0].function == NcclFunction::kSend);
  CHECK(pending[0].seen_ranks == std::vector<uint32_t>{0});
}

TEST_CASE("calls without a communicator or a peer are not matched") {
  CollectiveMatcher matcher(4);
  CollectiveCall no_comm = AllReduce(1, 0, 1, 2);
  no_comm.comm_id = 0;
  CHECK_FALSE(matcher.Add(no_comm));
  CHECK_FALSE(matcher.Add(
      CollectiveCall{0xc0ffee, 1, NcclFunction::kSend, 2, std::nullopt, 8, Arrival{0, 0, 1, 2}}));
  CHECK(matcher.pending_count() == 0);
}

TEST_CASE("a process entering last sums its lead and keeps its longest one") {
  // Process 2 is last twice (leads 300 and 50), process 0 once (lead 20).
  CollectiveStats stats(3);
  const auto collective = [](int64_t a, int64_t b, int64_t c) {
    return MatchedCollective{0xc0ffee,
                             NcclFunction::kAllReduce,
                             3,
                             4096,
                             {{0, 0, a, 5000}, {1, 1, b, 5000}, {2, 2, c, 5000}}};
  };
  stats.AddMatched(collective(1000, 1100, 1400));
  stats.AddMatched(collective(2000, 2010, 2060));
  stats.AddMatched(collective(3100, 3080, 3000));
  const std::vector<ParticipantStats>& parts = stats.participants();
  CHECK(parts[2].last_arrivals == 2);
  CHECK(parts[2].total_lead_ns == 300 + 50);
  CHECK(parts[2].longest_lead.lead_ns == 300);
  CHECK(parts[2].longest_lead.enter_ns == 1400);
  CHECK(parts[2].longest_lead.op == NcclFunction::kAllReduce);
  CHECK(parts[0].total_lead_ns == 20);
  CHECK(parts[1].total_lead_ns == 0);

  // Merging a node's totals adds the sums and keeps the longer example.
  ParticipantStats merged = parts[0];
  merged.Merge(parts[2]);
  CHECK(merged.total_lead_ns == 370);
  CHECK(merged.longest_lead.lead_ns == 300);
}
