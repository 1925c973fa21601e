// Detection and ranking on hand-built reports (candidate_fixture.h): figures
// taken on each step's slowest rank, shares of the median step only for
// full-step figures, full-step candidates before narrower scopes, and the
// actor-window and operator fallbacks without full steps.
#include <catch2/catch.hpp>

#include "candidate_fixture.h"
#include "reporter/candidates/rank_candidates.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

const CandidateReport& Find(const std::vector<CandidateReport>& candidates, std::string_view kind) {
  for (const CandidateReport& candidate : candidates) {
    if (candidate.kind == kind) return candidate;
  }
  FAIL("no candidate of kind " << kind);
  throw;
}

bool Has(const std::vector<CandidateReport>& candidates, std::string_view kind) {
  for (const CandidateReport& candidate : candidates) {
    if (candidate.kind == kind) return true;
  }
  return false;
}

bool AnyEvidence(const CandidateReport& candidate, std::string_view text) {
  for (const std::string& line : candidate.evidence) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

// Adds exposed time on `comm_id` to one step of one rank, and to its total.
void Expose(RankStepsReport& rank, size_t step, uint64_t comm_id, int64_t ns) {
  rank.steps[step].times.exposed_by_comm_ns[comm_id] += ns;
  rank.total.exposed_by_comm_ns[comm_id] += ns;
}

void AddWeightSyncPhase(Report& report, int64_t mean_ns, uint64_t count) {
  ProcessPhasesReport process;
  process.rank = 0;
  process.file = "rank0.vtrace";
  process.phases.push_back({"weight sync", false, "nvtx", count,
                            mean_ns * static_cast<int64_t>(count), mean_ns, std::nullopt});
  report.phases.push_back(process);
}

void AddIpcCalls(Report& report, uint64_t count, int64_t total_ns) {
  CoverageProcess process;
  process.file = "rank0.vtrace";
  process.rank = 0;
  process.ipc_calls["cudaIpcOpenMemHandle"] = {count, 0, total_ns};
  report.coverage = CoverageReport{{process}, {}};
}

}  // namespace

TEST_CASE("TP communication, host idle and launch-bound kernels in order, with shares") {
  const std::vector<CandidateReport> candidates = RankCandidates(StepsFixture(), std::nullopt);
  REQUIRE(candidates.size() == 3);

  // Rank 1, the slowest in both steps: (28 + 32) / 2 = 30 ms of the 100 ms
  // median step. Rank 0's 50 ms is off the critical path.
  const CandidateReport& tp = candidates[0];
  CHECK(tp.rank_order == 1);
  CHECK(tp.kind == "tp_communication");
  CHECK(tp.scope == CandidateScope::kFullStep);
  CHECK(tp.exposed_ns == 30 * kMs);
  REQUIRE(tp.step_share);
  CHECK(*tp.step_share == Approx(0.30));
  CHECK(tp.count == 120);          // 240 all-reduces ÷ 2 steps found
  CHECK(tp.total_ns == 12 * kMs);  // 48 ms ÷ 2 members ÷ 2 steps
  CHECK(tp.change == "custom_allreduce");
  CHECK(tp.strict == StrictTag::kNeedsContract);
  CHECK(tp.rule_id == "S3");
  CHECK_FALSE(tp.contract_declares);
  CHECK(AnyEvidence(tp, "rank 1 slowest in 2"));
  CHECK(AnyEvidence(tp, "comm 0xa (size 2; 240 ncclAllReduce over the trace): 30.0 ms per step"));
  // The slowest rank's span first.
  REQUIRE(tp.examples.size() == 2);
  CHECK(tp.examples[0].id == "correlation:77");
  CHECK(tp.examples[0].rank == 1);
  CHECK(tp.examples[0].file == "rank1.vtrace");
  CHECK(tp.examples[0].duration_ns == 12 * kMs);
  CHECK(tp.examples[1].id == "correlation:5");

  // (22 + 18) / 2 = 20 ms host-bound; all idle (23 + 19) / 2 = 21 ms.
  const CandidateReport& idle = candidates[1];
  CHECK(idle.rank_order == 2);
  CHECK(idle.kind == "host_idle");
  CHECK(idle.scope == CandidateScope::kFullStep);
  CHECK(idle.exposed_ns == 20 * kMs);
  REQUIRE(idle.step_share);
  CHECK(*idle.step_share == Approx(0.20));
  CHECK(idle.total_ns == 21 * kMs);
  CHECK(idle.change == "cuda_graph_capture");
  CHECK(idle.strict == StrictTag::kEligible);

  // 2000 elementwise kernels of 5 µs = 10 ms over 2 steps found: 5 ms and
  // 1000 kernels per step; gemm (not fusable), copy (20 µs) and reduce (50
  // per step) stay out. An operator figure: no share of the step.
  const CandidateReport& launch = candidates[2];
  CHECK(launch.rank_order == 3);
  CHECK(launch.kind == "launch_bound_kernels");
  CHECK(launch.scope == CandidateScope::kOperator);
  CHECK(launch.exposed_ns == 5 * kMs);
  CHECK(launch.count == 1000);
  CHECK_FALSE(launch.step_share);
  CHECK(launch.change == "fuse_elementwise_same_order");
  CHECK(launch.strict == StrictTag::kEligible);
  CHECK(launch.rule_id == "S1");
}

TEST_CASE("a contract that allows custom all-reduce makes the TP candidate eligible") {
  RunContract contract;
  contract.file = "c.json";
  contract.custom_allreduce_allowed = true;
  const std::vector<CandidateReport> candidates = RankCandidates(StepsFixture(), contract);
  const CandidateReport& tp = Find(candidates, "tp_communication");
  CHECK(tp.strict == StrictTag::kEligible);
  CHECK(tp.contract_declares);
  CHECK(tp.rank_order == 1);  // the contract moves tags, never the order
}

TEST_CASE("a longer actor-window figure still ranks after the full-step ones") {
  Report report = StepsFixture();
  AddWeightSyncPhase(report, 60 * kMs, 4);
  AddIpcCalls(report, 400, 100 * kMs);
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  REQUIRE(candidates.size() == 4);
  CHECK(candidates[0].kind == "tp_communication");
  CHECK(candidates[1].kind == "host_idle");
  const CandidateReport& sync = candidates[2];
  CHECK(sync.kind == "weight_sync");
  CHECK(sync.rank_order == 3);
  CHECK(sync.scope == CandidateScope::kActorWindow);
  CHECK(sync.exposed_ns == 60 * kMs);  // 60 ms > 30 ms, but one process's window
  CHECK_FALSE(sync.step_share);
  CHECK(sync.count == 100);  // 400 IPC opens ÷ 4 weight syncs
  CHECK(sync.change == "batch_ipc_handles");
  CHECK(sync.strict == StrictTag::kEligible);
  CHECK(AnyEvidence(sync, "cudaIpcOpenMemHandle ×400"));
  CHECK(candidates[3].kind == "launch_bound_kernels");
}

TEST_CASE("weight sync without IPC proposes batched broadcasts; IPC alone is operator scope") {
  Report phase_only = StepsFixture();
  AddWeightSyncPhase(phase_only, 60 * kMs, 4);
  const std::vector<CandidateReport> sync_all = RankCandidates(phase_only, std::nullopt);
  const CandidateReport& sync = Find(sync_all, "weight_sync");
  CHECK(sync.change == "batch_weight_broadcasts");
  CHECK(sync.count == 0);

  Report ipc_only = StepsFixture();
  AddIpcCalls(ipc_only, 400, 100 * kMs);
  const std::vector<CandidateReport> candidates = RankCandidates(ipc_only, std::nullopt);
  const CandidateReport& ipc = Find(candidates, "weight_sync");
  CHECK(ipc.scope == CandidateScope::kOperator);
  CHECK(ipc.exposed_ns == 50 * kMs);  // 100 ms ÷ 2 steps found
  CHECK(ipc.count == 200);
  CHECK(ipc.change == "batch_ipc_handles");
  // Operator figures rank by time among themselves: 50 ms before 5 ms.
  CHECK(ipc.rank_order == 3);
  CHECK(Find(candidates, "launch_bound_kernels").rank_order == 4);
}

TEST_CASE("without a known slowest rank, each step takes the largest rank's value") {
  Report report = StepsFixture();
  for (FullStepReport& step : report.steps->full_steps) step.slowest_rank.reset();
  // max(50, 28) and max(50, 32): 50 ms per step.
  const std::vector<CandidateReport> tp_all = RankCandidates(report, std::nullopt);
  const CandidateReport& tp = Find(tp_all, "tp_communication");
  CHECK(tp.exposed_ns == 50 * kMs);
  CHECK(tp.scope == CandidateScope::kFullStep);
  CHECK(*tp.step_share == Approx(0.50));
}

TEST_CASE("gradient-bucket communication is a candidate of its own") {
  Report report = StepsFixture();
  RankStepsReport& rank1 = report.steps->ranks[1];
  Expose(rank1, 0, kBucketComm, 6 * kMs);
  Expose(rank1, 1, kBucketComm, 10 * kMs);
  rank1.steps[0].buckets.push_back(
      {0, NcclFunction::kAllReduce, kBucketComm, 1 << 20, 0, 8 * kMs, 6 * kMs});
  rank1.bucket_plan_stable = true;
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  // (6 + 10) / 2 = 8 ms on rank 1; TP stays 30 ms (0xB is a bucket communicator).
  const CandidateReport& buckets = Find(candidates, "gradient_buckets");
  CHECK(buckets.exposed_ns == 8 * kMs);
  CHECK(buckets.scope == CandidateScope::kFullStep);
  CHECK(*buckets.step_share == Approx(0.08));
  CHECK(buckets.change == "overlap_same_buckets");
  CHECK(buckets.strict == StrictTag::kEligible);
  CHECK(AnyEvidence(buckets, "bucket plan stable"));
  CHECK(Find(candidates, "tp_communication").exposed_ns == 30 * kMs);
  // Launch-bound (5 ms, operator) ranks after the 8 ms full-step figure.
  CHECK(buckets.rank_order == 3);
  CHECK(Find(candidates, "launch_bound_kernels").rank_order == 4);
}

TEST_CASE("ranks with steps but no full steps fall back to one rank's window") {
  Report report = StepsFixture();
  report.steps->full_steps.clear();
  report.steps->median_step_ns.reset();
  const std::vector<CandidateReport> tp_all = RankCandidates(report, std::nullopt);
  const CandidateReport& tp = Find(tp_all, "tp_communication");
  // The largest per-step mean of one rank: rank 0's (50 + 50) / 2.
  CHECK(tp.scope == CandidateScope::kActorWindow);
  CHECK(tp.exposed_ns == 50 * kMs);
  CHECK_FALSE(tp.step_share);
  CHECK(AnyEvidence(tp, "no full steps across ranks"));
}

TEST_CASE("without steps, communication and kernels fall back to operator scope") {
  for (const bool with_problem : {false, true}) {
    Report report = NoStepsFixture();
    if (with_problem) {
      report.steps.emplace();
      report.steps->problem = "no step ranges";
    }
    const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
    REQUIRE(candidates.size() == 2);
    // Rank 1's 40 ms of NCCL kernels over the whole trace.
    const CandidateReport& comm = candidates[0];
    CHECK(comm.kind == "communication");
    CHECK(comm.scope == CandidateScope::kOperator);
    CHECK(comm.exposed_ns == 40 * kMs);
    CHECK(comm.count == 100);
    CHECK_FALSE(comm.step_share);
    CHECK(comm.change == "nccl_algorithm_change");
    CHECK(comm.strict == StrictTag::kNeedsContract);
    CHECK(comm.evidence.front().rfind("no measured steps: operator scope", 0) == 0);
    // One window, the whole trace: elementwise 2000 kernels (10 ms) and now
    // reduce too (100 ≥ 100 per window, 2 µs): 10.2 ms, 2100 kernels.
    const CandidateReport& launch = candidates[1];
    CHECK(launch.kind == "launch_bound_kernels");
    CHECK(launch.exposed_ns == 10 * kMs + 200 * kUs);
    CHECK(launch.count == 2100);
    CHECK(launch.rank_order == 2);
  }
}

TEST_CASE("communicators rebuilt with the same members are churn") {
  Report report = NoStepsFixture();
  const auto comm = [](uint64_t id, std::vector<std::string> files, bool destroyed) {
    CommunicatorReport c;
    c.comm_id = id;
    c.size = static_cast<uint32_t>(files.size());
    for (uint32_t i = 0; i < files.size(); ++i)
      c.members.push_back({i, static_cast<int32_t>(i), files[i], "h", 0, ""});
    c.lifecycle.push_back({"ncclCommInitRank", 2, 6 * kMs, 4 * kMs});
    if (destroyed) c.lifecycle.push_back({"ncclCommDestroy", 2, 4 * kMs, 3 * kMs});
    return c;
  };
  // Three with members {a, b}, one destroyed: churn. Two with {c, d}: not.
  report.communicators = {comm(1, {"a", "b"}, false), comm(2, {"b", "a"}, true),
                          comm(3, {"a", "b"}, false), comm(4, {"c", "d"}, true),
                          comm(5, {"c", "d"}, true)};
  const std::vector<CandidateReport> churn_all = RankCandidates(report, std::nullopt);
  const CandidateReport& churn = Find(churn_all, "communicator_churn");
  // Per member: 3 × 6 ms ÷ 2 + 4 ms ÷ 2 = 11 ms over the whole trace.
  CHECK(churn.exposed_ns == 11 * kMs);
  CHECK(churn.count == 3);
  CHECK(churn.scope == CandidateScope::kOperator);
  CHECK(churn.change == "reuse_communicators");
  CHECK(churn.strict == StrictTag::kEligible);
  CHECK(churn.evidence.size() == 2);  // the scope line and the one group

  report.communicators.pop_back();
  report.communicators.erase(report.communicators.begin() + 1);  // {a, b}: two left
  const std::vector<CandidateReport> without = RankCandidates(report, std::nullopt);
  CHECK_FALSE(Has(without, "communicator_churn"));
}

TEST_CASE("copies with the GPU otherwise idle, with the copy totals of the slowest rank") {
  Report report = StepsFixture();
  RankStepsReport& rank1 = report.steps->ranks[1];
  rank1.steps[0].times.copy_ns = 4 * kMs;
  rank1.steps[1].times.copy_ns = 6 * kMs;
  rank1.total.copy_ns = 10 * kMs;
  GpuReport& gpu = report.processes[1].gpu;
  gpu.memcpy = {10, 1 << 20, 8 * kMs};
  gpu.memset = {2, 0, 2 * kMs};
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& copies = Find(candidates, "copies");
  // (4 + 6) / 2 = 5 ms of 100: 5%; (10 + 2) copies and (8 + 2) ms over 2 steps found.
  CHECK(copies.scope == CandidateScope::kFullStep);
  CHECK(copies.exposed_ns == 5 * kMs);
  CHECK(*copies.step_share == Approx(0.05));
  CHECK(copies.count == 6);
  CHECK(copies.total_ns == 5 * kMs);
  CHECK(copies.change == "async_pinned_copies");
  CHECK(copies.strict == StrictTag::kEligible);
  CHECK(AnyEvidence(copies, "rank 1: 10 memcpy (1.00 MiB, 8.00 ms) and 2 memset"));
  // 5 ms full-step copies rank before the 5 ms operator-scope kernels.
  CHECK(copies.rank_order == 3);
  CHECK(Find(candidates, "launch_bound_kernels").rank_order == 4);
}

namespace {

RankReport LateRank(int32_t rank, uint64_t last_arrivals, int64_t total_lead_ns) {
  RankReport late;
  late.rank = rank;
  late.file = "rank" + std::to_string(rank) + ".vtrace";
  late.collectives = 20;
  late.last_arrivals = last_arrivals;
  late.total_lead_ns = total_lead_ns;
  late.longest_lead = {5 * kMs, 700 * kMs, kTpComm, NcclFunction::kAllReduce, 1 << 20};
  return late;
}

}  // namespace

TEST_CASE("the rank the others wait for is a full-step candidate, with what it did instead") {
  Report report = StepsFixture();
  report.ranks = {LateRank(0, 4, 2 * kMs), LateRank(1, 16, 30 * kMs)};
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& straggler = Find(candidates, "straggler");
  // 30 ms of lead over the trace ÷ 2 steps found, of the 100 ms median step.
  CHECK(straggler.exposed_ns == 15 * kMs);
  CHECK(straggler.scope == CandidateScope::kFullStep);
  REQUIRE(straggler.step_share);
  CHECK(*straggler.step_share == Approx(0.15));
  CHECK(straggler.count == 8);  // 16 last arrivals ÷ 2 steps
  CHECK(straggler.title.find("rank 1") != std::string::npos);
  // Rank 1's host-bound idle is 20 ms per step against rank 0's 0.
  CHECK(AnyEvidence(straggler, "host-bound idle 20.0 ms per step against 0 ns"));
  CHECK(AnyEvidence(straggler, "next: rank 0, 1.00 ms per step"));
  CHECK_FALSE(AnyEvidence(straggler, "clock"));  // one host
  REQUIRE(straggler.examples.size() == 1);
  CHECK(straggler.examples[0].start_ns == 695 * kMs);
  CHECK(straggler.examples[0].duration_ns == 5 * kMs);
  CHECK(straggler.change == "rebalance_late_rank");
  CHECK(straggler.strict == StrictTag::kEligible);
  // Ranked by time among the full-step figures: after the 30 ms of TP communication and the
  // 20 ms of host-bound idle.
  CHECK(candidates[1].kind == "host_idle");
  CHECK(candidates[2].kind == "straggler");
}

TEST_CASE("a lead of a few microseconds per step is no straggler") {
  Report report = StepsFixture();
  report.ranks = {LateRank(0, 10, 9 * kUs), LateRank(1, 10, 19 * kUs)};  // < 10 µs per step
  CHECK_FALSE(Has(RankCandidates(report, std::nullopt), "straggler"));
}

TEST_CASE("across hosts the straggler's lead is held against the clock's error bound") {
  Report report = StepsFixture();
  report.ranks = {LateRank(0, 4, 0), LateRank(1, 10, 3 * kMs)};  // 300 µs per collective
  report.time_source.aligned_to_realtime = true;
  report.time_source.clock_error_bound_ns = 500 * kUs;
  CHECK(AnyEvidence(Find(RankCandidates(report, std::nullopt), "straggler"),
                    "mean lead 300 µs is within the clock alignment's error bound ±500 µs"));
  report.time_source.clock_error_bound_ns = 100 * kUs;
  CHECK(AnyEvidence(Find(RankCandidates(report, std::nullopt), "straggler"),
                    "mean lead 300 µs exceeds the clock alignment's error bound ±100 µs"));
}

TEST_CASE("allocation calls that cost a measurable share of the step are allocator churn") {
  Report report = StepsFixture();
  // Rank 1: 6 calls and 2.4 ms over its 2 measured steps (1.2 ms and 3 calls per step, 1.2% of
  // the 100 ms median); rank 0 less.
  report.steps->ranks[0].allocation_calls = 2;
  report.steps->ranks[0].allocation_call_ns = 200 * kUs;
  report.steps->ranks[1].allocation_calls = 6;
  report.steps->ranks[1].allocation_call_ns = 2400 * kUs;
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& churn = Find(candidates, "allocator_churn");
  CHECK(churn.exposed_ns == 1200 * kUs);
  CHECK(churn.total_ns == 1200 * kUs);
  CHECK(churn.count == 3);
  CHECK(churn.scope == CandidateScope::kOperator);
  CHECK(churn.change == "keep_allocations");
  CHECK(churn.strict == StrictTag::kEligible);
  CHECK(churn.rule_id == "S13");
  CHECK(AnyEvidence(churn, "6 calls, 2.40 ms"));

  // 0.4 ms per step is under 0.5% of the median step: not a candidate.
  report.steps->ranks[1].allocation_call_ns = 800 * kUs;
  CHECK_FALSE(Has(RankCandidates(report, std::nullopt), "allocator_churn"));
}
