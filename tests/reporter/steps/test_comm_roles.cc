// The roles of communication kernels (reporter/steps/comm_roles.h), one
// parallelism at a time, as each lays out its collectives over forward,
// backward and the rest of a step; and "unclassified" where no evidence holds.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "reporter/steps/comm_roles.h"

using namespace vprof::reporter;

namespace {

constexpr PhaseIndex kNone = 0, kForward = 1, kBackward = 2, kWeightSync = 3, kOptimizer = 4;

struct Call {
  uint64_t comm_id;
  NcclFunction function;
  PhaseIndex phase;
  uint64_t bytes = 1 << 20;
};

// Two ranks, two steps, each launching `calls`.
StepsReport Steps(const std::vector<Call>& calls) {
  StepsReport steps;
  for (int32_t r = 0; r < 2; ++r) {
    RankStepsReport& rank = steps.ranks.emplace_back();
    rank.rank = r;
    rank.phase_names = {"", "forward", "backward", "weight sync", "optimizer"};
    for (int s = 0; s < 2; ++s) {
      RankStepReport& step = rank.steps.emplace_back();
      for (const Call& call : calls) {
        StepCollective c;
        c.comm_id = call.comm_id;
        c.function = call.function;
        c.phase = call.phase;
        c.bytes = call.bytes;
        c.in_backward = call.phase == kBackward;
        step.collectives.push_back(c);
      }
    }
  }
  return steps;
}

CommRole RoleOf(const StepsReport& steps, size_t call) {
  return CommRoles::Of(steps).RoleOf(steps.ranks[0], steps.ranks[0].steps[0].collectives[call]);
}

}  // namespace

TEST_CASE("data parallel: backward's reductions are buckets, small gathers after them metrics") {
  const StepsReport steps = Steps({{1, NcclFunction::kAllReduce, kBackward},
                                   {1, NcclFunction::kAllReduce, kBackward},
                                   {1, NcclFunction::kAllGather, kNone, 4096},
                                   {2, NcclFunction::kBroadcast, kWeightSync}});
  CHECK(RoleOf(steps, 0) == CommRole::kGradientBuckets);
  CHECK(RoleOf(steps, 2) == CommRole::kMetrics);
  CHECK(RoleOf(steps, 3) == CommRole::kWeightSync);
  // The Communicators section's evidence: one line per communicator and role.
  const CommRoles roles = CommRoles::Of(steps);
  const std::vector<CommRoleEvidence>& evidence = roles.evidence();
  REQUIRE(evidence.size() == 3);
  CHECK(evidence[0].comm_id == 1);
  CHECK(evidence[0].role == CommRole::kGradientBuckets);
  CHECK(evidence[0].evidence ==
        "8 ncclAllReduce in backward (reductions of backward on a communicator that does not "
        "reduce in forward)");
  CHECK(evidence[1].role == CommRole::kMetrics);
  CHECK(evidence[2].comm_id == 2);
  CHECK(evidence[2].evidence ==
        "4 ncclBroadcast in weight sync (launched in the weight-sync phase)");
}

TEST_CASE("tensor parallel: reductions in forward, several a step, and backward's on that comm") {
  const StepsReport steps = Steps({{7, NcclFunction::kAllReduce, kForward},
                                   {7, NcclFunction::kAllReduce, kForward},
                                   {7, NcclFunction::kAllReduce, kBackward},
                                   {1, NcclFunction::kAllReduce, kBackward}});
  CHECK(RoleOf(steps, 0) == CommRole::kTensorParallel);
  CHECK(RoleOf(steps, 2) == CommRole::kTensorParallel);
  CHECK(RoleOf(steps, 3) == CommRole::kGradientBuckets);
  // Once a step in forward is not every layer: no evidence names it.
  const StepsReport once = Steps({{7, NcclFunction::kAllReduce, kForward}});
  CHECK(RoleOf(once, 0) == CommRole::kUnclassified);
}

TEST_CASE("sharded data parallel: gathers in forward, reduce-scatters only in backward") {
  const StepsReport steps = Steps({{1, NcclFunction::kAllGather, kForward},
                                   {1, NcclFunction::kAllGather, kForward},
                                   {1, NcclFunction::kAllGather, kBackward},
                                   {1, NcclFunction::kReduceScatter, kBackward}});
  for (size_t call = 0; call < 4; ++call) {
    CHECK(RoleOf(steps, call) == CommRole::kShardedDataParallel);
  }
  // A sharded optimizer gathers its parameters after the step, on the buckets' communicator.
  const StepsReport zero = Steps({{1, NcclFunction::kReduceScatter, kBackward},
                                  {1, NcclFunction::kAllGather, kOptimizer, 64 << 20}});
  CHECK(RoleOf(zero, 0) == CommRole::kGradientBuckets);
  CHECK(RoleOf(zero, 1) == CommRole::kShardedDataParallel);
}

TEST_CASE("weight sync without its phase: broadcasts, and large gathers on a comm of their own") {
  const StepsReport steps = Steps({{1, NcclFunction::kAllReduce, kBackward},
                                   {2, NcclFunction::kBroadcast, kNone, 64 << 20},
                                   {3, NcclFunction::kAllGather, kNone, 64 << 20}});
  CHECK(RoleOf(steps, 1) == CommRole::kWeightSync);
  CHECK(RoleOf(steps, 2) == CommRole::kWeightSync);
}

TEST_CASE("pipeline send/receive; and no guess where nothing holds") {
  const StepsReport steps = Steps({{4, NcclFunction::kSend, kForward},
                                   {4, NcclFunction::kRecv, kBackward},
                                   {5, NcclFunction::kAlltoAll, kNone, 64 << 20}});
  CHECK(RoleOf(steps, 0) == CommRole::kPipeline);
  CHECK(RoleOf(steps, 1) == CommRole::kPipeline);
  CHECK(RoleOf(steps, 2) == CommRole::kUnclassified);
  CHECK(CommRoleName(CommRole::kUnclassified) == "unclassified");
  for (const CommRole role :
       {CommRole::kGradientBuckets, CommRole::kWeightSync, CommRole::kShardedDataParallel,
        CommRole::kTensorParallel, CommRole::kPipeline, CommRole::kMetrics}) {
    CHECK(CommRoleNamed(CommRoleName(role)) == role);
  }
}
