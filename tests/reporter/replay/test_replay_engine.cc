// The replay on steps built in memory, each with an answer worked out by hand
// from the pieces' times (microseconds in the comments).
#include <catch2/catch.hpp>

#include "replay_steps.h"
#include "reporter/candidates/candidate_projections.h"
#include "reporter/replay/replay_engine.h"
#include "reporter/replay/step_replays.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// Host-bound: four kernels of 1 ms launched 10 µs apart run back to back
// (0 to 4 ms); then the host is slow: a kernel of 1 ms launched at 7, 10, 13
// and 16 ms. The step ends with the last kernel at 17 ms.
StepsReport HostBound() {
  return OneStep({{{0, 0, 1000},
                   {10, 1000, 2000},
                   {20, 2000, 3000},
                   {30, 3000, 4000},
                   {7000, 7000, 8000},
                   {10000, 10000, 11000},
                   {13000, 13000, 14000},
                   {16000, 16000, 17000}}});
}

// GPU-bound: four kernels of 2 ms launched at once, one after another on
// their stream: 8 ms.
StepsReport GpuBound() {
  return OneStep({{{0, 0, 2000}, {10, 2000, 4000}, {20, 4000, 6000}, {30, 6000, 8000}}});
}

// Two ranks compute 5 ms, then all-reduce; rank 0 launches it as its compute
// ends (a synchronization), rank 1's host only at 8 ms. The all-reduce ends
// 1 ms after rank 1 arrives: a 9 ms step, 3 ms of it the wait for rank 1.
StepsReport LateRankStep() {
  return OneStep({{{0, 0, 5000}, Collective(5000, 5000, 9000, 1)},
                  {{0, 0, 5000}, Collective(8000, 8000, 9000, 1)}});
}

int64_t Ms(double ms) { return std::llround(ms * 1e6); }

Projection Projected(const StepsReport& steps, const ReplayChange& change) {
  const StepReplays replays(steps);
  REQUIRE(replays.check().withheld.empty());
  std::string why_not;
  const std::optional<Projection> projection = replays.Project(change, why_not);
  INFO(why_not);
  REQUIRE(projection);
  return *projection;
}

}  // namespace

TEST_CASE("the unchanged replay reproduces each measured step") {
  for (const StepsReport& steps : {HostBound(), GpuBound(), LateRankStep()}) {
    const StepReplays replays(steps);
    CHECK(replays.check().steps == 1);
    CHECK(replays.check().replayed_ns == steps.full_steps[0].duration_ns);
    CHECK(replays.check().error == 0);
    CHECK(replays.check().withheld.empty());
  }
}

TEST_CASE("rank 0's launch as its compute ends is counted as an assumed synchronization") {
  const StepsReport steps = LateRankStep();
  const StepReplays replays(steps);
  CHECK(replays.check().assumed_syncs == 1);
  CHECK(replays.check().assumed_waits == 0);
  CHECK(replays.check().collectives_apart == 0);
}

TEST_CASE("host gaps cut to the quickest leave the kernels back to back") {
  ReplayChange change;
  change.no_host_gaps = true;
  // The gaps, 10 µs three times, then 6.97, 3, 3 and 3 ms: the quickest is 10 µs, and every
  // launch comes 10 µs after the one before; the GPU runs the eight kernels back to back.
  const Projection p = Projected(HostBound(), change);
  CHECK(p.step_ns == Ms(8));
  CHECK(p.saving_ns == Ms(9));
  CHECK(p.saving_share == Approx(9.0 / 17));
  REQUIRE_FALSE(p.critical_path.empty());
  CHECK(p.critical_path[0] == std::pair<std::string, int64_t>{"compute", Ms(8)});
}

TEST_CASE("host gaps cut on a straggler keep its lateness over its peer") {
  // Both ranks launch two kernels of 1 ms 10 µs apart, then wait on the host before a third:
  // rank 0 4.99 ms, rank 1 6.99 ms, 2 ms longer; each launches its all-reduce 10 µs later.
  // Rank 1 arrives at 8 ms, 2 ms after rank 0, and the all-reduce ends 1 ms later, at 9 ms.
  const StepsReport steps = OneStep(
      {{{0, 0, 1000}, {10, 1000, 2000}, {5000, 5000, 6000}, Collective(5010, 6000, 9000, 1)},
       {{0, 0, 1000}, {10, 1000, 2000}, {7000, 7000, 8000}, Collective(7010, 8000, 9000, 1)}});
  ReplayChange change;
  change.no_host_gaps = true;
  change.lateness_kept.emplace_back(1, 0);
  // Rank 0's gaps all become 10 µs: it launches the third kernel at 20 µs, which runs from 2 to
  // 3 ms, and arrives at 3 ms. Rank 1's long gap loses what rank 0's lost (4.98 ms) and keeps
  // its 2 ms more: the third kernel launched at 2.02 ms runs to 3.02 ms, when the all-reduce
  // (launched at 2.03 ms) starts; it ends 1 ms after, at 4.02 ms.
  CHECK(Projected(steps, change).step_ns == Ms(4.02));
  // Rank 1 cut like any other rank would lose its lateness: both arrive at 3 ms.
  change.lateness_kept.clear();
  CHECK(Projected(steps, change).step_ns == Ms(4));
  // Against no peer, a straggler's gaps stay as measured.
  change.lateness_kept.emplace_back(1, kNone);
  CHECK(Projected(steps, change).step_ns == Ms(9));
  // So do they against a peer whose pieces do not line up: as many, but rank 1's third kernel
  // another one than rank 0's.
  const StepsReport unlike = OneStep(
      {{{0, 0, 1000}, {10, 1000, 2000}, {5000, 5000, 6000}, Collective(5010, 6000, 9000, 1)},
       {{0, 0, 1000},
        {10, 1000, 2000},
        {7000, 7000, 8000, "softmax"},
        Collective(7010, 8000, 9000, 1)}});
  change.lateness_kept = {{1, 0}};
  CHECK(Projected(unlike, change).step_ns == Ms(9));
}

TEST_CASE("a peer's wait at a synchronization is not host time a straggler loses") {
  // Both ranks run a kernel of 1 ms and an all-reduce (1 to 2 ms); rank 0 synchronizes on it and
  // launches its next kernel 10 µs after it ends; rank 1's host is 3 ms later (a gap of 5 ms
  // since its last launch). The second all-reduce waits for rank 1 until 6.01 ms: 7.01 ms.
  const StepsReport steps = OneStep({{{0, 0, 1000},
                                      Collective(10, 1000, 2000, 1),
                                      {2010, 2010, 3010},
                                      Collective(2020, 3010, 7010, 2)},
                                     {{0, 0, 1000},
                                      Collective(10, 1000, 2000, 1),
                                      {5010, 5010, 6010},
                                      Collective(5020, 6010, 7010, 2)}});
  ReplayChange change;
  change.no_host_gaps = true;
  change.lateness_kept.emplace_back(1, 0);
  // Rank 0's gap of 2 ms before its kernel is its wait, not its host's time (10 µs after the
  // synchronization, already its quickest): rank 1 keeps its whole 3 ms and nothing changes.
  CHECK(Projected(steps, change).step_ns == Ms(7.01));
  // Cut like any rank, rank 1 launches 10 µs after its all-reduce: it runs 2 to 3 ms, rank 0
  // arrives last at 3.01 ms, and the all-reduce takes its 1 ms.
  change.lateness_kept.clear();
  CHECK(Projected(steps, change).step_ns == Ms(4.01));
}

TEST_CASE("faster kernels shorten a GPU-bound step, not a host-bound one") {
  ReplayChange change;
  change.faster.push_back({[](const WorkOf& of) { return of.name() == "gemm"; }, 2});
  CHECK(Projected(GpuBound(), change).step_ns == Ms(4));
  // Host-bound: each kernel ends 0.5 ms sooner, but the next launch comes when it came; only the
  // last kernel's half ends the step sooner (the first four end by 2 ms, long before 7 ms).
  CHECK(Projected(HostBound(), change).saving_ns == Ms(0.5));
}

TEST_CASE("removed work takes no time") {
  ReplayChange change;
  change.faster.push_back({[](const WorkOf&) { return true; }, 0});
  // Only the launches remain: the last at 30 µs.
  CHECK(Projected(GpuBound(), change).step_ns == Ms(0.03));
}

TEST_CASE("the late rank running like the median rank: the wait for it goes") {
  const StepsReport steps = LateRankStep();
  REQUIRE(MedianRankBut(steps, 1) == 0u);
  ReplayChange change;
  change.runs_like.emplace_back(1, 0);
  const Projection p = Projected(steps, change);
  CHECK(p.step_ns == Ms(6));  // both arrive at 5 ms, 1 ms of transfer
  CHECK(p.saving_ns == Ms(3));
}

TEST_CASE("a faster transfer: the collective's time after its last member arrived") {
  ReplayChange change;
  change.faster.push_back({[](const WorkOf& of) { return of.work.kind == WorkKind::kComm; }, 2});
  CHECK(Projected(LateRankStep(), change).step_ns == Ms(8.5));
}

TEST_CASE("a rank made faster: its host gaps and its work") {
  ReplayChange change;
  change.rank_faster.emplace_back(1, 2.0);
  // Rank 1's compute takes 2.5 ms and its launch comes at 4 ms; now rank 0, at 5 ms, arrives
  // last, and the transfer (both ranks' link, not rank 1's alone) takes its 1 ms.
  const Projection p = Projected(LateRankStep(), change);
  CHECK(p.step_ns == Ms(6));
}

TEST_CASE("ranks whose work does not line up cannot run like each other") {
  StepsReport steps = OneStep({{{0, 0, 5000}, Collective(5000, 5000, 9000, 1)},
                               {{0, 0, 2000}, {10, 2000, 5000}, Collective(8000, 8000, 9000, 1)}});
  const StepReplays replays(steps);
  ReplayChange change;
  change.runs_like.emplace_back(1, 0);
  std::string why_not;
  CHECK_FALSE(replays.Project(change, why_not));
  CHECK(why_not.find("does not line up") != std::string::npos);
}

TEST_CASE("a replay off the measured step by more than 5% withholds every projection") {
  StepsReport steps = GpuBound();
  steps.full_steps[0].duration_ns = Ms(10);  // measured 10 ms, the pieces replay 8 ms
  const StepReplays replays(steps);
  CHECK(replays.check().error == Approx(0.2));
  CHECK(replays.check().withheld.find("off the measured steps by 20.0%") != std::string::npos);
  std::string why_not;
  CHECK_FALSE(replays.Project(ReplayChange{}, why_not));
  CHECK(why_not == replays.check().withheld);
}

TEST_CASE("each candidate kind projects the change it stands for") {
  const StepsReport late = LateRankStep();
  std::vector<DetectedCandidate> candidates(2);
  candidates[0].report.kind = "straggler";
  candidates[0].report.rank = 1;
  candidates[1].report.kind = "allocator_churn";
  ProjectCandidates(late, StepReplays(late), candidates);
  CHECK(candidates[0].report.projected_saving_ns == Ms(3));
  CHECK(candidates[0].report.projected_share == Approx(3.0 / 9));
  CHECK(candidates[0].report.projection.find("rank 1 running like rank 0") == 0);
  CHECK_FALSE(candidates[1].report.projected_saving_ns);
  CHECK_FALSE(candidates[1].report.projection_withheld.empty());

  const StepsReport host_bound = HostBound();
  std::vector<DetectedCandidate> host(1);
  host[0].report.kind = "host_idle";
  ProjectCandidates(host_bound, StepReplays(host_bound), host);
  CHECK(host[0].report.projected_saving_ns == Ms(9));
}

// A ledger candidate's saving on the replayed steps is carried to the measured steps by its
// time on each: HostBound's step, replayed (9 ms of host-bound idle, all of it saved), and an
// 11 ms step the replay did not keep, with 3 ms of it. Per measured step the idle is 6 ms, and
// so is the saving: 9 ms × 6 ÷ 9, a share of the 14 ms mean step.
TEST_CASE("a ledger candidate's saving is carried from the replayed steps to the measured ones") {
  StepsReport steps = HostBound();
  RankStepsReport& rank = steps.ranks[0];
  RankStepReport& later = rank.steps.emplace_back();
  later.start_ns = Ms(20);
  later.end_ns = Ms(31);
  FullStepReport& unreplayed = steps.full_steps.emplace_back();
  unreplayed.step = 1;
  unreplayed.start_ns = Ms(20);
  unreplayed.duration_ns = Ms(11);
  const auto ledger = [](int64_t idle_ns) {
    return std::vector<LedgerItem>{{idle_ns, LedgerCause::kHostBoundIdle},
                                   {Ms(8), LedgerCause::kCompute}};
  };
  rank.steps[0].ledger = ledger(Ms(9));
  rank.steps[1].ledger = ledger(Ms(3));
  for (FullStepReport& full : steps.full_steps) full.ledger_rank = 0;
  steps.ledger.emplace();
  steps.ledger->mean_step_ns = Ms(14);

  const StepReplays replays(steps);
  REQUIRE(replays.check().steps == 1);
  std::vector<DetectedCandidate> host(1);
  host[0].report.kind = "host_idle";
  host[0].report.exposed_ns = Ms(6);
  host[0].ledger_lines = [](const LedgerLine& line) {
    return line.cause == LedgerCause::kHostBoundIdle;
  };
  std::vector<DetectedCandidate> totals = host;  // a candidate without ledger lines
  totals[0].ledger_lines = nullptr;
  ProjectCandidates(steps, replays, host);
  ProjectCandidates(steps, replays, totals);

  const CandidateReport& carried = host[0].report;
  CHECK(carried.replayed_saving_ns == Ms(9));
  CHECK(carried.projected_saving_ns == Ms(6));
  CHECK(carried.projected_share == Approx(6.0 / 14));
  REQUIRE_FALSE(carried.evidence.empty());
  CHECK(carried.evidence.back() ==
        "the replayed steps (1) hold 9.00 ms of it per step, the measured steps 6.00 ms: the "
        "saving on the replayed steps (9.00 ms) is carried to the measured steps in that "
        "proportion");
  CHECK(totals[0].report.projected_saving_ns == Ms(9));
  CHECK(totals[0].report.projected_share == Approx(9.0 / 17));
  CHECK(totals[0].report.evidence.empty());

  // Where the replayed step holds a fifth of the measured steps' 6 ms (1.2 ms, a ratio of 5,
  // above kCarriedMost), it cannot speak for them: withheld, with both figures.
  rank.steps[0].ledger = ledger(Ms(1.2));
  std::vector<DetectedCandidate> thin = {host[0]};
  thin[0].report = CandidateReport{};
  thin[0].report.kind = "host_idle";
  thin[0].report.exposed_ns = Ms(6);
  ProjectCandidates(steps, replays, thin);
  CHECK_FALSE(thin[0].report.projected_saving_ns);
  CHECK_FALSE(thin[0].report.projected_share);
  CHECK(thin[0].report.replayed_saving_ns == Ms(9));
  CHECK(thin[0].report.projection_withheld ==
        "the replayed steps (1) hold 1.20 ms of it per step, the measured steps 6.00 ms: too "
        "little to carry their saving (9.00 ms) over");
}

TEST_CASE("kernel name patterns: '*' any run, case ignored, the whole name") {
  CHECK(NameMatches("gemm*", "GEMM_kernel"));
  CHECK(NameMatches("*gemm*", "sm90_xmma_gemm_f16f16"));
  CHECK(NameMatches("*", ""));
  CHECK(NameMatches("a*b*c", "axxbyyc"));
  CHECK_FALSE(NameMatches("gemm", "gemm_x"));
  CHECK_FALSE(NameMatches("a*b*c", "axxbyy"));
  CHECK_FALSE(NameMatches("*gemm", "gemm_x"));
}
