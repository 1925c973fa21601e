// The strict rule table: every change kind's tag without a contract, with a
// contract that declares nothing, and with the declaration its row names;
// the tag and rule never move with the candidate's times.
#include <catch2/catch.hpp>
#include <set>

#include "candidate_fixture.h"
#include "reporter/candidates/rank_candidates.h"
#include "reporter/candidates/strict_rules.h"
#include "reporter/steps/ledger.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

RunContract EmptyContract() {
  RunContract contract;
  contract.file = "contract.json";
  return contract;
}

// Every axis declared in every way the rows accept.
RunContract DeclaringEverything() {
  RunContract contract = EmptyContract();
  contract.custom_allreduce_allowed = true;
  contract.all_reduce_backend = AllReduceBackend::kCustomAllReduce;
  contract.nccl_algorithms = {"RING", "TREE"};
  contract.fallback_axes = {ConsistencyAxis::kNcclAlgo, ConsistencyAxis::kNcclProto,
                            ConsistencyAxis::kNcclChannels, ConsistencyAxis::kAllReduceBackend};
  return contract;
}

struct Expected {
  ChangeKind change;
  const char* name;
  StrictTag without;  // no contract, or one that declares nothing
  StrictTag with;     // DeclaringEverything
};

using enum ChangeKind;
using enum StrictTag;
const Expected kExpected[] = {
    {kFuseElementwiseSameOrder, "fuse_elementwise_same_order", kEligible, kEligible},
    {kCudaGraphCapture, "cuda_graph_capture", kEligible, kEligible},
    {kCustomAllReduce, "custom_allreduce", kNeedsContract, kEligible},
    {kOverlapRegroupingReductions, "overlap_regrouping_reductions", kNotEligible, kNotEligible},
    {kOverlapSameBuckets, "overlap_same_buckets", kEligible, kEligible},
    {kBucketFusion, "bucket_fusion", kNotEligible, kNotEligible},
    {kNcclAlgorithmChange, "nccl_algorithm_change", kNeedsContract, kEligible},
    {kBatchIpcHandles, "batch_ipc_handles", kEligible, kEligible},
    {kBatchWeightBroadcasts, "batch_weight_broadcasts", kEligible, kEligible},
    {kReuseCommunicators, "reuse_communicators", kEligible, kEligible},
    {kAsyncPinnedCopies, "async_pinned_copies", kEligible, kEligible},
    {kRebalanceLateRank, "rebalance_late_rank", kEligible, kEligible},
    {kKeepAllocations, "keep_allocations", kEligible, kEligible},
    {kFasterKernels, "faster_kernels", kNotEligible, kNotEligible},
    {kPrefetchShardedGathers, "prefetch_sharded_gathers", kEligible, kEligible},
    {kOverlapPipelineTransfers, "overlap_pipeline_transfers", kEligible, kEligible},
    {kDeferMetricCollectives, "defer_metric_collectives", kEligible, kEligible},
    {kShortenHostWork, "shorten_host_work", kEligible, kEligible},
    {kOverlapCopies, "overlap_copies", kEligible, kEligible},
};

}  // namespace

TEST_CASE("the table has one row per change kind, with distinct ids and names") {
  REQUIRE(StrictRules().size() == std::size(kExpected));
  std::set<std::string_view> ids, names;
  for (const StrictRule& rule : StrictRules()) {
    ids.insert(rule.id);
    names.insert(rule.change_name);
    CHECK_FALSE(rule.text.empty());
    // A needs_contract row names its declaration; no other row has one.
    CHECK((rule.tag == kNeedsContract) == (rule.declares != nullptr));
    CHECK((rule.tag == kNeedsContract) == !rule.contract_declaration.empty());
  }
  CHECK(ids.size() == StrictRules().size());
  CHECK(names.size() == StrictRules().size());
}

TEST_CASE("every change kind's tag with and without a declaring contract") {
  for (const Expected& expected : kExpected) {
    INFO(expected.name);
    CHECK(StrictRuleOf(expected.change).change_name == expected.name);
    const StrictVerdict none = JudgeStrict(expected.change, std::nullopt);
    CHECK(none.tag == expected.without);
    CHECK_FALSE(none.contract_declares);
    CHECK(JudgeStrict(expected.change, EmptyContract()).tag == expected.without);
    const StrictVerdict declared = JudgeStrict(expected.change, DeclaringEverything());
    CHECK(declared.tag == expected.with);
    CHECK(declared.contract_declares == (expected.without == kNeedsContract));
  }
}

TEST_CASE("custom all-reduce is eligible by any one of its three declarations") {
  CHECK(JudgeStrict(kCustomAllReduce, EmptyContract()).tag == kNeedsContract);
  RunContract allowed = EmptyContract();
  allowed.custom_allreduce_allowed = true;
  CHECK(JudgeStrict(kCustomAllReduce, allowed).tag == kEligible);
  RunContract backend = EmptyContract();
  backend.all_reduce_backend = AllReduceBackend::kCustomAllReduce;
  CHECK(JudgeStrict(kCustomAllReduce, backend).tag == kEligible);
  RunContract nccl_backend = EmptyContract();
  nccl_backend.all_reduce_backend = AllReduceBackend::kNccl;
  CHECK(JudgeStrict(kCustomAllReduce, nccl_backend).tag == kNeedsContract);
  RunContract fallback = EmptyContract();
  fallback.fallback_axes = {ConsistencyAxis::kAllReduceBackend};
  CHECK(JudgeStrict(kCustomAllReduce, fallback).tag == kEligible);
  // Another axis's fallback declares nothing about the backend.
  RunContract other_axis = EmptyContract();
  other_axis.fallback_axes = {ConsistencyAxis::kNcclAlgo};
  CHECK(JudgeStrict(kCustomAllReduce, other_axis).tag == kNeedsContract);
}

TEST_CASE("an algorithm change needs nccl_algo as a fallback axis or several algorithms") {
  RunContract one = EmptyContract();
  one.nccl_algorithms = {"RING"};  // frozen to Ring
  CHECK(JudgeStrict(kNcclAlgorithmChange, one).tag == kNeedsContract);
  RunContract two = EmptyContract();
  two.nccl_algorithms = {"RING", "TREE"};
  CHECK(JudgeStrict(kNcclAlgorithmChange, two).tag == kEligible);
  RunContract fallback = one;
  fallback.fallback_axes = {ConsistencyAxis::kNcclAlgo};
  CHECK(JudgeStrict(kNcclAlgorithmChange, fallback).tag == kEligible);
  RunContract proto = one;
  proto.fallback_axes = {ConsistencyAxis::kNcclProto};
  CHECK(JudgeStrict(kNcclAlgorithmChange, proto).tag == kNeedsContract);
}

TEST_CASE("the rule text names the row and, for contract rows, the declaration or the file") {
  const StrictVerdict without = JudgeStrict(kCustomAllReduce, std::nullopt);
  CHECK(without.rule_id == "S3");
  CHECK(without.rule.rfind("S3 custom_allreduce: ", 0) == 0);
  CHECK(without.rule.find("custom_allreduce_allowed: true") != std::string::npos);
  RunContract allowed = EmptyContract();
  allowed.custom_allreduce_allowed = true;
  CHECK(JudgeStrict(kCustomAllReduce, allowed).rule.find("contract contract.json declares it") !=
        std::string::npos);
  CHECK(JudgeStrict(kBucketFusion, std::nullopt).rule.rfind("S6 bucket_fusion: ", 0) == 0);
}

TEST_CASE("the same change with other times keeps its tag and rule") {
  Report small = StepsFixture();
  Report large = StepsFixture();
  // Ten times more exposed communication and idle on every rank and step.
  for (RankStepsReport& rank : large.steps->ranks) {
    for (RankStepReport& step : rank.steps) {
      for (StepCollective& collective : step.collectives) {
        collective.duration_ns *= 10;
        collective.exposed_ns *= 10;
      }
      for (ExposedPiece& piece : step.exposed_pieces) piece.to_ns *= 10;
      for (PhaseTime& idle : step.host_idle_by_phase) idle.ns *= 10;
    }
  }
  BuildLedgers(*large.steps);
  for (const std::optional<RunContract>& contract :
       {std::optional<RunContract>(), std::optional<RunContract>(DeclaringEverything())}) {
    const std::vector<CandidateReport> a = RankCandidates(small, contract);
    const std::vector<CandidateReport> b = RankCandidates(large, contract);
    REQUIRE(a.size() == b.size());
    int compared = 0;
    for (const CandidateReport& x : a) {
      for (const CandidateReport& y : b) {
        if (x.kind != y.kind || (x.kind != "tp_communication" && x.kind != "host_idle")) continue;
        INFO(x.kind);
        ++compared;
        CHECK(x.exposed_ns != y.exposed_ns);  // the times did change...
        CHECK(x.strict == y.strict);          // ...the verdict did not
        CHECK(x.rule == y.rule);
        CHECK(x.change == y.change);
      }
    }
    CHECK(compared == 2);
  }
}
