// Detection and ranking on hand-built reports (candidate_fixture.h): figures
// taken from the step ledger of the rank that ends each step, each ledger
// line in one candidate, shares of the mean step only for full-step
// figures, full-step candidates before narrower scopes, and the
// actor-window and operator fallbacks without full steps.
#include <catch2/catch.hpp>
#include <optional>
#include <tuple>
#include <vector>

#include "candidate_fixture.h"
#include "reporter/candidates/candidate_detectors.h"
#include "reporter/candidates/rank_candidates.h"
#include "reporter/steps/ledger.h"

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

void AddWeightSyncPhase(Report& report, int64_t mean_ns, uint64_t count) {
  ProcessPhasesReport process;
  process.rank = 0;
  process.file = "rank0.vtrace";
  process.phases.push_back({"weight sync", false, "nvtx", count,
                            mean_ns * static_cast<int64_t>(count), mean_ns, std::nullopt});
  report.phases.push_back(process);
}

void AddIpcCalls(Report& report, uint64_t count, int64_t total_ns, int32_t rank = 0) {
  CoverageProcess process;
  process.file = "rank" + std::to_string(rank) + ".vtrace";
  process.rank = rank;
  process.ipc_calls["cudaIpcOpenMemHandle"] = {count, 0, total_ns};
  report.coverage = CoverageReport{{process}, {}};
}

}  // namespace

TEST_CASE("TP communication, host idle, compute and launch-bound kernels in order, with shares") {
  const std::vector<CandidateReport> candidates = RankCandidates(StepsFixture(), std::nullopt);
  REQUIRE(candidates.size() == 4);

  // Rank 1 ends both steps: its ledger's (28 + 32) / 2 = 30 ms of the 100 ms
  // step. Rank 0's 50 ms of the same collectives is off the critical path.
  const CandidateReport& tp = candidates[0];
  CHECK(tp.rank_order == 1);
  CHECK(tp.kind == "tp_communication");
  CHECK(tp.scope == CandidateScope::kFullStep);
  CHECK(tp.exposed_ns == 30 * kMs);
  REQUIRE(tp.step_share);
  CHECK(*tp.step_share == Approx(0.30));
  CHECK(tp.rank == 1);
  CHECK(tp.phase == "forward");
  CHECK(tp.role == "tensor parallel");
  CHECK(tp.change == "custom_allreduce");
  CHECK(tp.strict == StrictTag::kNeedsContract);
  CHECK(tp.rule_id == "S3");
  CHECK_FALSE(tp.contract_declares);
  CHECK(AnyEvidence(tp, "of the rank that ends each step (rank 1 in 2)"));
  // Its examples are its own collectives on the ledger's rank, the most exposed first.
  REQUIRE(tp.examples.size() == 3);
  CHECK(tp.examples[0].rank == 1);
  CHECK(tp.examples[0].id == "correlation:103");  // step 1's, 16 ms
  CHECK(tp.examples[0].duration_ns == 16 * kMs);

  // (22 + 18) / 2 = 20 ms host-bound, all in forward.
  const CandidateReport& idle = candidates[1];
  CHECK(idle.rank_order == 2);
  CHECK(idle.kind == "host_idle");
  CHECK(idle.exposed_ns == 20 * kMs);
  CHECK(*idle.step_share == Approx(0.20));
  CHECK(idle.phase == "forward");
  CHECK(idle.change == "cuda_graph_capture");
  CHECK(idle.strict == StrictTag::kEligible);

  // Compute (49 ms) is the floor the waste stands on: after the waste that is
  // 5% of the step or more.
  const CandidateReport& compute = candidates[2];
  CHECK(compute.kind == "compute");
  CHECK(compute.exposed_ns == 49 * kMs);
  CHECK(*compute.step_share == Approx(0.49));
  CHECK(compute.phase == "backward");
  CHECK(AnyEvidence(compute, "by phase: backward 29.0 ms, forward 20.0 ms"));
  CHECK(compute.change == "faster_kernels");
  CHECK(compute.strict == StrictTag::kNotEligible);

  // The full-step shares add up to at most the step: 30 + 20 + 49 of 100.
  double shares = 0;
  for (const CandidateReport& each : candidates) shares += each.step_share.value_or(0);
  CHECK(shares == Approx(0.99));

  // 2000 elementwise kernels of 5 µs = 10 ms over 2 steps found: 5 ms and
  // 1000 kernels per step; gemm (not fusable), copy (20 µs) and reduce (50
  // per step) stay out. An operator figure: no share of the step.
  const CandidateReport& launch = candidates[3];
  CHECK(launch.rank_order == 4);
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

TEST_CASE(
    "weight sync in the ledger: its collectives' transfer, with the phase's compute and idle") {
  Report report = StepsFixture();
  // Rank 1 syncs weights in each step: a broadcast of 6 ms exposed and 2 ms of compute in the
  // weight-sync phase, 1 ms of its host-bound idle moved there.
  for (RankStepsReport& rank : report.steps->ranks) {
    rank.phase_names.push_back("weight sync");
    const PhaseIndex sync = 3;
    for (RankStepReport& step : rank.steps) {
      StepCollective broadcast;
      broadcast.comm_id = 0xC;
      broadcast.seq = step.step + 1;
      broadcast.bytes = 64 << 20;
      broadcast.duration_ns = 6 * kMs;
      broadcast.exposed_ns = rank.rank == 1 ? 6 * kMs : 0;
      broadcast.first_piece = static_cast<uint32_t>(step.exposed_pieces.size());
      broadcast.pieces = rank.rank == 1 ? 1 : 0;
      broadcast.phase = sync;
      broadcast.function = NcclFunction::kBroadcast;
      step.collectives.push_back(broadcast);
      if (rank.rank == 1) {
        step.exposed_pieces.push_back({0, 6 * kMs});
        step.compute_by_phase.push_back({sync, 2 * kMs});
        step.host_idle_by_phase.push_back({sync, 1 * kMs});
      }
    }
  }
  BuildLedgers(*report.steps);
  AddIpcCalls(report, 400, 100 * kMs, 1);
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& sync = Find(candidates, "weight_sync");
  CHECK(sync.scope == CandidateScope::kFullStep);
  CHECK(sync.exposed_ns == 9 * kMs);  // 6 + 2 + 1
  CHECK(*sync.step_share == Approx(0.09));
  CHECK(sync.rank == 1);
  CHECK(sync.phase == "weight sync");
  CHECK(sync.role == "weight sync");
  CHECK(AnyEvidence(sync, "of it: transfer 6.00 ms compute 2.00 ms host-bound idle 1.00 ms"));
  CHECK(sync.change == "batch_ipc_handles");  // rank 1's process opened IPC handles
  // None of it counted again: compute and host idle outside weight sync keep their figures.
  CHECK(Find(candidates, "compute").exposed_ns == 49 * kMs);
  CHECK(Find(candidates, "host_idle").exposed_ns == 20 * kMs);
  // Ranked by time among the waste that is 5% of the step or more, before compute.
  CHECK(sync.rank_order == 3);
  CHECK(Find(candidates, "compute").rank_order == 4);
}

TEST_CASE("without steps, the weight-sync NVTX phase is one process's window") {
  Report report = NoStepsFixture();
  AddWeightSyncPhase(report, 60 * kMs, 4);
  AddIpcCalls(report, 400, 100 * kMs);
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& sync = Find(candidates, "weight_sync");
  CHECK(sync.scope == CandidateScope::kActorWindow);
  CHECK(sync.exposed_ns == 60 * kMs);
  CHECK_FALSE(sync.step_share);
  CHECK(sync.count == 100);  // 400 IPC opens ÷ 4 weight syncs
  CHECK(sync.change == "batch_ipc_handles");
  CHECK(AnyEvidence(sync, "cudaIpcOpenMemHandle ×400"));
}

TEST_CASE("CUDA IPC calls alone, with no weight sync in the ledger, are operator scope") {
  Report report = StepsFixture();
  AddIpcCalls(report, 400, 100 * kMs);
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& ipc = Find(candidates, "weight_sync");
  CHECK(ipc.scope == CandidateScope::kOperator);
  CHECK(ipc.exposed_ns == 50 * kMs);  // 100 ms ÷ 2 steps found
  CHECK(ipc.count == 200);
  CHECK(ipc.change == "batch_ipc_handles");
  // Operator figures rank by time among themselves: 50 ms before 5 ms.
  CHECK(ipc.rank_order == 4);
  CHECK(Find(candidates, "launch_bound_kernels").rank_order == 5);
}

TEST_CASE("ranks that end a step together: the ledger of the one that waited longest") {
  const Report report = StepsFixture({.steps = 2, .end_together = true});
  // Rank 0 waited 11 + 11 or 9 + 9 ms for rank 1 in its all-reduces: its ledger is the steps'.
  for (const FullStepReport& step : report.steps->full_steps) CHECK(step.ledger_rank == 0u);
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  // Its transfer: (14 + 14 + 16 + 16) / 2 = 30 ms, the part after rank 1 arrived.
  const CandidateReport& tp = Find(candidates, "tp_communication");
  CHECK(tp.exposed_ns == 30 * kMs);
  CHECK(tp.rank == 0);
  CHECK(AnyEvidence(tp,
                    "the exposed wait at these collectives for the last member to arrive, "
                    "20.0 ms per step, is the late ranks'"));
  // Rank 1 last in 4 of 4 collectives of 2 ranks: p = 1/16, chance; no straggler.
  CHECK_FALSE(Has(candidates, "straggler"));
  REQUIRE(report.steps->ledger);
  REQUIRE_FALSE(report.steps->ledger->late.empty());
  const LateRank& late = report.steps->ledger->late.front();
  CHECK(late.index == 1);
  CHECK(late.last == 4);
  CHECK(late.collectives == 4);
  CHECK(late.p_value == Approx(0.0625));
  CHECK(late.wait_per_step_ns == 20 * kMs);
  CHECK_FALSE(late.straggler);
}

TEST_CASE("gradient-bucket communication is a candidate of its own") {
  Report report = StepsFixture();
  RankStepsReport& rank1 = report.steps->ranks[1];
  for (RankStepReport& step : rank1.steps) {
    StepCollective bucket;
    bucket.comm_id = kBucketComm;
    bucket.seq = step.step + 1;
    bucket.duration_ns = (step.step == 0 ? 6 : 10) * kMs;
    bucket.exposed_ns = bucket.duration_ns;
    bucket.first_piece = static_cast<uint32_t>(step.exposed_pieces.size());
    bucket.pieces = 1;
    bucket.phase = kBackward;
    bucket.function = NcclFunction::kAllReduce;
    bucket.in_backward = true;
    step.collectives.push_back(bucket);
    step.exposed_pieces.push_back({0, bucket.duration_ns});
    step.buckets.push_back({0, NcclFunction::kAllReduce, kBucketComm, 1 << 20, 0,
                            bucket.duration_ns, bucket.duration_ns});
  }
  rank1.bucket_plan_stable = true;
  BuildLedgers(*report.steps);
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  // (6 + 10) / 2 = 8 ms on rank 1; TP stays 30 ms (0xB does not reduce in forward).
  const CandidateReport& buckets = Find(candidates, "gradient_buckets");
  CHECK(buckets.exposed_ns == 8 * kMs);
  CHECK(buckets.scope == CandidateScope::kFullStep);
  CHECK(*buckets.step_share == Approx(0.08));
  CHECK(buckets.role == "gradient buckets");
  CHECK(buckets.phase == "backward");
  CHECK(buckets.change == "overlap_same_buckets");
  CHECK(buckets.strict == StrictTag::kEligible);
  CHECK(AnyEvidence(buckets, "bucket plan stable"));
  CHECK(Find(candidates, "tp_communication").exposed_ns == 30 * kMs);
  CHECK(buckets.rank_order == 3);
  CHECK(Find(candidates, "compute").rank_order == 4);
}

namespace {

// Gradient buckets of every step of rank 1, each {its GPU time, of it exposed} in issue order
// (the exposed part at the kernel's end), and the candidate they make. With `tp_last`, a
// tensor-parallel reduction of that time, all exposed, after them in backward (on the fixture's
// TP communicator, which reduces in forward): a reduction of backward, not a gradient bucket.
CandidateReport BucketsCandidate(const std::vector<std::pair<int64_t, int64_t>>& buckets,
                                 std::optional<int64_t> tp_last = std::nullopt) {
  Report report = StepsFixture();
  RankStepsReport& rank1 = report.steps->ranks[1];
  for (RankStepReport& step : rank1.steps) {
    std::vector<std::tuple<uint64_t, int64_t, int64_t>> reductions;
    for (const auto& [gpu_ns, exposed_ns] : buckets)
      reductions.emplace_back(kBucketComm, gpu_ns, exposed_ns);
    if (tp_last) reductions.emplace_back(kTpComm, *tp_last, *tp_last);
    for (const auto& [comm_id, gpu_ns, exposed_ns] : reductions) {
      StepCollective bucket;
      bucket.comm_id = comm_id;
      bucket.seq = step.step * 10 + static_cast<uint64_t>(step.buckets.size()) + 1;
      bucket.duration_ns = gpu_ns;
      bucket.exposed_ns = exposed_ns;
      bucket.first_piece = static_cast<uint32_t>(step.exposed_pieces.size());
      bucket.pieces = exposed_ns > 0 ? 1 : 0;
      bucket.phase = kBackward;
      bucket.function = NcclFunction::kAllReduce;
      bucket.in_backward = true;
      step.collectives.push_back(bucket);
      if (exposed_ns > 0) step.exposed_pieces.push_back({gpu_ns - exposed_ns, gpu_ns});
      step.buckets.push_back({static_cast<uint32_t>(step.buckets.size()), NcclFunction::kAllReduce,
                              comm_id, 1 << 20, 0, gpu_ns, exposed_ns});
    }
  }
  rank1.bucket_plan_stable = true;
  BuildLedgers(*report.steps);
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  return Find(candidates, "gradient_buckets");
}

}  // namespace

TEST_CASE("gradient buckets already overlapped with backward are not advised to overlap") {
  // Issued after backward: nothing hidden, so issuing the same buckets earlier is the change.
  const CandidateReport late = BucketsCandidate({{4 * kMs, 4 * kMs}, {4 * kMs, 4 * kMs}});
  CHECK(late.change == "overlap_same_buckets");
  CHECK_FALSE(AnyEvidence(late, "overlap in place"));

  // The earlier buckets 7.6 of 8 ms hidden (95%); the last holds 3 of the 3.4 ms exposed
  // (88.2%): a smaller last bucket, which regroups the gradients (not eligible under strict).
  const CandidateReport last =
      BucketsCandidate({{4 * kMs, 0}, {4 * kMs, 400 * kUs}, {4 * kMs, 3 * kMs}});
  CHECK(last.change == "overlap_regrouping_reductions");
  CHECK(last.rule_id == "S4");
  CHECK(last.strict == StrictTag::kNotEligible);
  CHECK(AnyEvidence(last,
                    "overlap in place on rank 1: the buckets before each step's last ran hidden "
                    "behind compute for 95.0% of what could hide them (their own time or "
                    "backward's compute, whichever is shorter); the last bucket holds 88.2% of "
                    "the buckets' exposed time: it is ready only when backward ends"));

  // A tensor-parallel reduction after the last bucket, in backward, is no bucket: counted, its
  // 4 ms exposed would be the last bucket's (54.1% of 7.4 ms) and the earlier buckets 71.7%
  // hidden.
  const CandidateReport with_tp =
      BucketsCandidate({{4 * kMs, 0}, {4 * kMs, 400 * kUs}, {4 * kMs, 3 * kMs}}, 4 * kMs);
  CHECK(with_tp.change == "overlap_regrouping_reductions");
  CHECK(AnyEvidence(with_tp, "for 95.0% of what could hide them"));
  CHECK(AnyEvidence(with_tp, "the last bucket holds 88.2% of the buckets' exposed time"));

  // Half of the earlier buckets' 8 ms hidden, the last holding 3 of 7 ms exposed (42.9%): the
  // all-reduces outlast the compute under them, and a faster transfer is what is left.
  const CandidateReport spread =
      BucketsCandidate({{4 * kMs, 1 * kMs}, {4 * kMs, 3 * kMs}, {4 * kMs, 3 * kMs}});
  CHECK(spread.change == "nccl_algorithm_change");
  CHECK(spread.rule_id == "S7");
  CHECK(AnyEvidence(spread,
                    "behind compute for 50.0% of what could hide them (their own time or "
                    "backward's compute, whichever is shorter); the last bucket holds 42.9% of "
                    "the buckets' exposed time: the all-reduces outlast"));
}

TEST_CASE("ranks with steps but no full steps fall back to one rank's window") {
  Report report = StepsFixture();
  report.steps->full_steps.clear();
  BuildLedgers(*report.steps);
  const std::vector<CandidateReport> tp_all = RankCandidates(report, std::nullopt);
  const CandidateReport& tp = Find(tp_all, "tp_communication");
  // The rank with the longest mean window alone: rank 1 (100 ms against 97).
  CHECK(tp.scope == CandidateScope::kActorWindow);
  CHECK(tp.exposed_ns == 30 * kMs);
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

TEST_CASE("copies with the GPU otherwise idle, with the copy totals of the ledger's rank") {
  Report report = StepsFixture();
  RankStepsReport& rank1 = report.steps->ranks[1];
  rank1.steps[0].times.copy_ns = 4 * kMs;
  rank1.steps[1].times.copy_ns = 6 * kMs;
  BuildLedgers(*report.steps);
  GpuReport& gpu = report.processes[1].gpu;
  gpu.memcpy = {10, 1 << 20, 8 * kMs};
  gpu.memset = {2, 0, 2 * kMs};
  // Of the 10 ms of copies and memsets, 5 ms from pageable memory: pinning them is the change.
  gpu.pageable_copies = {6, 1 << 19, 5 * kMs};
  gpu.pinned_copies = {2, 1 << 18, 2 * kMs};
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& copies = Find(candidates, "copies");
  // (4 + 6) / 2 = 5 ms of 100: 5%.
  CHECK(copies.scope == CandidateScope::kFullStep);
  CHECK(copies.exposed_ns == 5 * kMs);
  CHECK(*copies.step_share == Approx(0.05));
  CHECK(copies.change == "async_pinned_copies");
  CHECK(copies.rule_id == "S11");
  CHECK(copies.strict == StrictTag::kEligible);
  CHECK(AnyEvidence(copies, "rank 1: 10 memcpy (1.00 MiB, 8.00 ms) and 2 memset"));
  // Of the 10 ms of copies and memsets: 5 pageable, 2 pinned, the other 1 of memcpy, 2 memset.
  CHECK(AnyEvidence(copies,
                    "rank 1's copy and memset time: 50.0% copies from or into pageable host "
                    "memory, 20.0% from or into pinned memory, 10.0% other copies (device memory, "
                    "or of another kind), 20.0% memsets: pinned host memory would let the copies "
                    "run asynchronously"));
  // 5% of the step: before compute.
  CHECK(copies.rank_order == 3);
  CHECK(Find(candidates, "compute").rank_order == 4);

  // Under half from pageable memory: pinning is not what is left to do.
  gpu.pageable_copies = {5, 1 << 19, 4 * kMs};
  gpu.pinned_copies = {3, 1 << 18, 3 * kMs};
  const std::vector<CandidateReport> again = RankCandidates(report, std::nullopt);
  const CandidateReport& pinned = Find(again, "copies");
  CHECK(pinned.change == "overlap_copies");
  CHECK(pinned.rule_id == "S19");
  CHECK(pinned.strict == StrictTag::kEligible);
  CHECK(AnyEvidence(pinned,
                    "rank 1's copy and memset time: 40.0% copies from or into pageable host "
                    "memory, 30.0% from or into pinned memory, 10.0% other copies (device memory, "
                    "or of another kind), 20.0% memsets: pinning is in place or does not apply"));
}

namespace {

RankReport Arrivals(int32_t rank, uint64_t last_arrivals, int64_t total_lead_ns) {
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
  // Twelve steps: rank 1 last at all 24 all-reduces of 2 ranks, p = 2^-24.
  Report report = StepsFixture({.steps = 12, .end_together = true});
  report.ranks = {Arrivals(0, 0, 0), Arrivals(1, 24, 30 * kMs)};
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& straggler = Find(candidates, "straggler");
  // The ledger's wait for rank 1 on rank 0, the rank that ends each step: 20 ms per step.
  CHECK(straggler.exposed_ns == 20 * kMs);
  CHECK(straggler.scope == CandidateScope::kFullStep);
  REQUIRE(straggler.step_share);
  CHECK(*straggler.step_share == Approx(0.20));
  CHECK(straggler.rank == 1);
  CHECK(straggler.role == "tensor parallel");
  CHECK(straggler.phase == "forward");
  CHECK(straggler.count == 2);  // 24 last ÷ 12 steps
  CHECK(straggler.title.find("rank 1") != std::string::npos);
  CHECK(AnyEvidence(straggler,
                    "rank 1 arrived last at 24 of its 24 tensor-parallel collectives, in forward, "
                    "where chance gives 12 (one-sided binomial p = 5.96e-08, over its roles); 24 "
                    "of its 24 collectives in all"));
  // Rank 1's host-bound idle is 20 ms per step against rank 0's 3 ms.
  CHECK(AnyEvidence(straggler, "host-bound idle 20.0 ms per step against 3.00 ms"));
  CHECK_FALSE(AnyEvidence(straggler, "clock"));  // one host
  REQUIRE(straggler.examples.size() == 1);
  CHECK(straggler.examples[0].start_ns == 695 * kMs);
  CHECK(straggler.examples[0].duration_ns == 5 * kMs);
  CHECK(straggler.change == "rebalance_late_rank");
  CHECK(straggler.strict == StrictTag::kEligible);
  // Its wait is apart from the TP transfer, 30 ms, which ranks first.
  CHECK(candidates[0].kind == "tp_communication");
  CHECK(candidates[1].kind == "straggler");
}

TEST_CASE("without steps, a rank last more often than chance is a straggler by host times") {
  Report report = NoStepsFixture();
  // 2 ranks: 14 of 20 last is p = 0.058 (chance), 20 of 20 is p = 2^-20.
  report.ranks = {Arrivals(0, 6, 2 * kMs), Arrivals(1, 14, 30 * kMs)};
  CHECK_FALSE(Has(RankCandidates(report, std::nullopt), "straggler"));
  report.ranks = {Arrivals(0, 0, 0), Arrivals(1, 20, 30 * kMs)};
  const std::vector<CandidateReport> candidates = RankCandidates(report, std::nullopt);
  const CandidateReport& straggler = Find(candidates, "straggler");
  CHECK(straggler.exposed_ns == 30 * kMs);  // one window: the whole trace
  CHECK(straggler.rank == 1);
  CHECK(AnyEvidence(straggler,
                    "rank 1 entered last at 20 of its 20 collectives, where chance gives 10 "
                    "(one-sided binomial p = 9.54e-07); the others waited"));
  // A lead of a few microseconds is no straggler, however often.
  report.ranks = {Arrivals(0, 0, 0), Arrivals(1, 20, 9 * kUs)};
  CHECK_FALSE(Has(RankCandidates(report, std::nullopt), "straggler"));
}

TEST_CASE("across hosts the straggler's lead is held against the clock's error bound") {
  Report report = StepsFixture({.steps = 12, .end_together = true});
  report.ranks = {Arrivals(0, 0, 0), Arrivals(1, 10, 3 * kMs)};  // 300 µs per collective
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

namespace {

// Rank 1's kept steps as the replay keeps them: GPU work from 20 to 80 ms of
// each 100 ms step, either a CUDA-graph replay recorded whole or kernels
// launched one by one, then one kernel launched by itself at 85 to 95 ms.
// The GPU's idle: 20 ms before the first piece, 5 ms before the last.
void KeepWork(Report& report, bool graphed) {
  for (RankStepsReport& rank : report.steps->ranks) {
    if (rank.rank != 1) continue;
    for (RankStepReport& step : rank.steps) {
      ReplayWork work;
      work.start_ns = step.start_ns + 20 * kMs;
      work.end_ns = step.start_ns + 80 * kMs;
      work.whole_graph = graphed;
      step.replay.push_back(work);
      work.start_ns = step.start_ns + 85 * kMs;
      work.end_ns = step.start_ns + 95 * kMs;
      work.whole_graph = false;
      step.replay.push_back(work);
    }
  }
}

}  // namespace

TEST_CASE("idle before work already in CUDA graphs is not advised into a graph") {
  Report report = StepsFixture();
  KeepWork(report, true);
  const CandidateReport graphed = Find(RankCandidates(report, std::nullopt), "host_idle");
  CHECK(graphed.change == "shorten_host_work");
  CHECK(graphed.rule_id == "S18");
  CHECK(graphed.strict == StrictTag::kEligible);
  CHECK(graphed.title == "GPU idle between CUDA-graph replays, waiting for the host");
  // 20 of the 25 ms of idle in each step ended as the graph's replay began.
  CHECK(AnyEvidence(graphed,
                    "80.0% of the GPU's idle in rank 1's kept steps ended as work a "
                    "CUDA graph launched began"));

  Report eager = StepsFixture();
  KeepWork(eager, false);
  const CandidateReport launched = Find(RankCandidates(eager, std::nullopt), "host_idle");
  CHECK(launched.change == "cuda_graph_capture");
  CHECK_FALSE(AnyEvidence(launched, "CUDA graph launched"));
}

// The replay's saving is carried to the measured steps by the ledger lines each candidate names
// (candidate_projections.cc): they must be the lines its time was summed from. The fixture's
// ledger, per step (candidate_fixture.h): compute 49 ms, tensor-parallel transfer 30 ms,
// host-bound idle 20 ms.
TEST_CASE("each ledger candidate's lines sum to its time") {
  const Report report = StepsFixture();
  std::vector<DetectedCandidate> detected;
  DetectLedgerCandidates(report, detected);
  const auto lines_of = [&](const DetectedCandidate& candidate) {
    int64_t ns = 0;
    for (const LedgerLine& line : report.steps->ledger->lines) {
      if (candidate.ledger_lines(line)) ns += line.per_step_ns;
    }
    return ns;
  };
  std::vector<std::tuple<std::string, int64_t, int64_t>> found;
  for (const DetectedCandidate& candidate : detected) {
    REQUIRE(candidate.ledger_lines);
    found.emplace_back(candidate.report.kind, candidate.report.exposed_ns, lines_of(candidate));
  }
  CHECK(found == std::vector<std::tuple<std::string, int64_t, int64_t>>{
                     {"compute", 49 * kMs, 49 * kMs},
                     {"tp_communication", 30 * kMs, 30 * kMs},
                     {"host_idle", 20 * kMs, 20 * kMs}});
}
