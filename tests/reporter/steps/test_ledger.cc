// The step ledger (reporter/steps/ledger.h) on hand-built steps: the wait for
// a collective's last member split from the transfer by kernel durations and
// exposed pieces, what cannot be split left as transfer, vprof's own cost
// taken out of host-bound idle, the rank whose ledger a full step takes, and
// the straggler test at 4, 256 and 1,024 ranks.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "reporter/steps/full_steps.h"
#include "reporter/steps/ledger.h"

using namespace vprof::reporter;

namespace {

constexpr int64_t kUs = 1'000;
constexpr int64_t kMs = 1'000'000;
constexpr uint64_t kComm = 0xC0;
constexpr PhaseIndex kBackward = 1;

// A collective kernel of `duration_ns` on comm kComm, exposed over `pieces` (from its start).
void AddCollective(RankStepReport& step, uint64_t seq, int64_t duration_ns,
                   const std::vector<ExposedPiece>& pieces,
                   NcclFunction function = NcclFunction::kAllReduce) {
  StepCollective c;
  c.comm_id = kComm;
  c.seq = seq;
  c.bytes = 1 << 20;
  c.duration_ns = duration_ns;
  c.first_piece = static_cast<uint32_t>(step.exposed_pieces.size());
  c.pieces = static_cast<uint16_t>(pieces.size());
  c.phase = kBackward;
  c.function = function;
  c.in_backward = true;
  for (const ExposedPiece& piece : pieces) {
    c.exposed_ns += piece.to_ns - piece.from_ns;
    step.exposed_pieces.push_back(piece);
  }
  step.collectives.push_back(c);
  step.times.exposed_comm_ns += c.exposed_ns;
}

RankStepsReport Rank(int32_t rank, size_t steps) {
  RankStepsReport report;
  report.rank = rank;
  report.file = "rank" + std::to_string(rank) + ".vtrace";
  report.phase_names = {"", "backward"};
  report.steps_found = static_cast<uint32_t>(steps);
  for (size_t i = 0; i < steps; ++i) {
    RankStepReport& step = report.steps.emplace_back();
    step.step = static_cast<uint32_t>(i);
    step.start_ns = static_cast<int64_t>(i) * 100 * kMs;
  }
  return report;
}

// Closes a step: compute fills what the collectives and idle leave of `window_ns`.
void Close(RankStepReport& step, int64_t window_ns, int64_t host_idle_ns = 0) {
  step.times.window_ns = window_ns;
  step.times.idle_host_bound_ns = host_idle_ns;
  step.times.idle_ns = host_idle_ns;
  if (host_idle_ns > 0) step.host_idle_by_phase = {{kBackward, host_idle_ns}};
  step.times.compute_ns = window_ns - step.times.exposed_comm_ns - host_idle_ns;
  step.compute_by_phase = {{kBackward, step.times.compute_ns}};
  step.end_ns = step.start_ns + window_ns;
}

int64_t Item(const RankStepReport& step, LedgerCause cause) {
  int64_t ns = 0;
  for (const LedgerItem& item : step.ledger) ns += item.cause == cause ? item.ns : 0;
  return ns;
}

int64_t Sum(const RankStepReport& step) {
  int64_t ns = 0;
  for (const LedgerItem& item : step.ledger) ns += item.ns;
  return ns;
}

}  // namespace

TEST_CASE("a member's wait for the last one is the exposed part of its kernel before that one") {
  StepsReport steps;
  steps.ranks = {Rank(0, 1), Rank(1, 1)};
  // Rank 0 waits 7 ms in a 10 ms kernel; compute hides [2, 5) of it: exposed [0, 2) and [5, 10).
  AddCollective(steps.ranks[0].steps[0], 1, 10 * kMs, {{0, 2 * kMs}, {5 * kMs, 10 * kMs}});
  // Rank 1 arrives last: its 3 ms kernel is the transfer, all exposed.
  AddCollective(steps.ranks[1].steps[0], 1, 3 * kMs, {{0, 3 * kMs}});
  Close(steps.ranks[0].steps[0], 20 * kMs, 1 * kMs);
  Close(steps.ranks[1].steps[0], 20 * kMs);
  CompleteFullSteps(steps);

  const RankStepReport& waited = steps.ranks[0].steps[0];
  // Within [0, 7 ms): [0, 2) and [5, 7) exposed, 4 ms; the other 3 ms of exposure is transfer.
  CHECK(Item(waited, LedgerCause::kWaitForRank) == 4 * kMs);
  CHECK(Item(waited, LedgerCause::kTransfer) == 3 * kMs);
  for (const LedgerItem& item : waited.ledger) {
    if (item.cause == LedgerCause::kWaitForRank) CHECK(item.late == 1u);
    if (item.cause == LedgerCause::kTransfer) CHECK(item.role == CommRole::kGradientBuckets);
  }
  // Every nanosecond of the window in one cause.
  CHECK(Sum(waited) == 20 * kMs);
  const RankStepReport& late = steps.ranks[1].steps[0];
  CHECK(Item(late, LedgerCause::kWaitForRank) == 0);
  CHECK(Item(late, LedgerCause::kTransfer) == 3 * kMs);
  CHECK(Sum(late) == 20 * kMs);

  REQUIRE(steps.ledger);
  CHECK(steps.ledger->matched_collectives == 1);
  CHECK(steps.ledger->unmatched_collectives == 0);
  // Both end at 20 ms: the step takes the ledger of the one that waited.
  CHECK(steps.full_steps[0].ledger_rank == 0u);
}

TEST_CASE("what cannot be split stays transfer: one member seen, no seq") {
  StepsReport steps;
  steps.ranks = {Rank(0, 1), Rank(1, 1)};
  AddCollective(steps.ranks[0].steps[0], 5, 8 * kMs, {{0, 8 * kMs}});  // rank 1 never ran seq 5
  AddCollective(steps.ranks[0].steps[0], 0, 2 * kMs, {{0, 2 * kMs}});  // a group's: no seq
  AddCollective(steps.ranks[1].steps[0], 0, 1 * kMs, {{0, 1 * kMs}});
  Close(steps.ranks[0].steps[0], 20 * kMs);
  Close(steps.ranks[1].steps[0], 20 * kMs);
  CompleteFullSteps(steps);
  CHECK(Item(steps.ranks[0].steps[0], LedgerCause::kWaitForRank) == 0);
  CHECK(Item(steps.ranks[0].steps[0], LedgerCause::kTransfer) == 10 * kMs);
  CHECK(steps.ledger->matched_collectives == 0);
  CHECK(steps.ledger->unmatched_collectives == 1);
}

TEST_CASE("vprof's own cost comes out of host-bound idle, in proportion to each phase's") {
  StepsReport steps;
  steps.ranks = {Rank(0, 1)};
  RankStepReport& step = steps.ranks[0].steps[0];
  Close(step, 10 * kMs, 3 * kMs);
  step.host_idle_by_phase = {{0, 1 * kMs}, {kBackward, 2 * kMs}};
  step.launches = 300;
  steps.ranks[0].launch_cost = LaunchCostEstimate{1 * kUs, 0, 0, 300, 1, 0};
  CompleteFullSteps(steps);
  // 300 launches × 1 µs = 300 µs: 100 from the 1 ms, 200 from the 2 ms.
  CHECK(Item(step, LedgerCause::kVprofCost) == 300 * kUs);
  CHECK(Item(step, LedgerCause::kHostBoundIdle) == 2700 * kUs);
  for (const LedgerItem& item : step.ledger) {
    if (item.cause != LedgerCause::kHostBoundIdle) continue;
    CHECK(item.ns == (item.phase == kBackward ? 1800 * kUs : 900 * kUs));
  }
  CHECK(Sum(step) == 10 * kMs);
}

TEST_CASE("a full step takes the ledger of the rank that ends it when one ends it alone") {
  StepsReport steps;
  steps.ranks = {Rank(0, 1), Rank(1, 1)};
  AddCollective(steps.ranks[0].steps[0], 1, 10 * kMs, {{0, 10 * kMs}});
  AddCollective(steps.ranks[1].steps[0], 1, 3 * kMs, {{0, 3 * kMs}});
  Close(steps.ranks[0].steps[0], 20 * kMs);
  // Rank 1 ends 1 ms later: past 1% of the step, it ends it alone.
  Close(steps.ranks[1].steps[0], 21 * kMs);
  CompleteFullSteps(steps);
  CHECK(steps.full_steps[0].ledger_rank == 1u);
  CHECK(steps.ledger->ledger_steps == std::vector<uint32_t>{0, 1});
  CHECK(steps.ledger->mean_window_ns == 21 * kMs);
}

namespace {

// `ranks` ranks, 5 steps of 20 collectives each. In each collective the last member is
// `always_last` when set, else drawn from a fixed sequence; its kernel lasts 1 ms, the
// others' `wait_ns` more, all exposed. Each step is 100 ms.
StepsReport Job(size_t ranks, std::optional<uint32_t> always_last, int64_t wait_ns) {
  StepsReport steps;
  for (size_t r = 0; r < ranks; ++r) steps.ranks.push_back(Rank(static_cast<int32_t>(r), 5));
  uint64_t state = 12345;
  uint64_t seq = 0;
  for (size_t i = 0; i < 5; ++i) {
    for (int c = 0; c < 20; ++c) {
      ++seq;
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint32_t last = always_last.value_or(static_cast<uint32_t>((state >> 33) % ranks));
      for (size_t r = 0; r < ranks; ++r) {
        const int64_t duration = 1 * kMs + (r == last ? 0 : wait_ns);
        AddCollective(steps.ranks[r].steps[i], seq, duration, {{0, duration}});
      }
    }
    for (RankStepsReport& rank : steps.ranks) Close(rank.steps[i], 100 * kMs);
  }
  CompleteFullSteps(steps);
  return steps;
}

size_t Stragglers(const StepsReport& steps) {
  size_t named = 0;
  for (const LateRank& late : steps.ledger->late) named += late.straggler;
  return named;
}

}  // namespace

TEST_CASE("a rank last by chance is no straggler, at 4, 256 and 1,024 ranks") {
  for (const size_t ranks : {size_t{4}, size_t{256}, size_t{1024}}) {
    INFO(ranks << " ranks");
    // A wait of 60 µs a collective (1.2 ms a step, past the 1% a straggler must cost) for whoever
    // is last.
    const StepsReport chance = Job(ranks, std::nullopt, 60 * kUs);
    CHECK(Stragglers(chance) == 0);
    // One rank last every time: named, with the others' whole wait for it.
    const StepsReport late = Job(ranks, 2, 60 * kUs);
    REQUIRE(Stragglers(late) == 1);
    const LateRank& named = late.ledger->late.front();
    CHECK(named.index == 2);
    CHECK(named.last == 100);
    CHECK(named.collectives == 100);
    CHECK(named.expected_last == Approx(100.0 / static_cast<double>(ranks)));
    CHECK(named.wait_per_step_ns == 20 * 60 * kUs);
    CHECK(named.role == CommRole::kGradientBuckets);
    CHECK(named.phase == "backward");
  }
}

TEST_CASE("a rank always last but hardly waited for is no straggler") {
  // 20 µs a collective: 400 µs a step, 0.4% of it, under the 1% a straggler must cost.
  const StepsReport steps = Job(4, 2, 20 * kUs);
  REQUIRE_FALSE(steps.ledger->late.empty());
  CHECK(steps.ledger->late.front().p_value < 1e-6);
  CHECK(Stragglers(steps) == 0);
}
