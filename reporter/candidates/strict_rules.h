// The strict-eligibility rules: one table (strict_rules.cc) that says, for
// each kind of change a fast-path candidate proposes, whether a strict run
// (bitwise train/rollout agreement: reduction order and bucket boundaries
// frozen) may use it. The tag depends only on the change and on what the
// run's contract declares, never on how much time the change would save.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "reporter/consistency/run_contract.h"
#include "reporter/model/candidate_report.h"

namespace vprof::reporter {

enum class ChangeKind : uint8_t {
  kFuseElementwiseSameOrder,     // fuse elementwise kernels, no reduction reordered
  kCudaGraphCapture,             // replay captured launches
  kCustomAllReduce,              // vLLM-style custom all-reduce instead of NCCL
  kOverlapRegroupingReductions,  // overlap that changes which gradients reduce together
  kOverlapSameBuckets,           // overlap that keeps the buckets and their order
  kBucketFusion,                 // merge gradient buckets
  kNcclAlgorithmChange,          // another NCCL algorithm (Ring → Tree, NVLS, ...)
  kBatchIpcHandles,              // open CUDA IPC handles in batches, not one per tensor
  kBatchWeightBroadcasts,        // fewer, larger weight-sync broadcasts
  kReuseCommunicators,           // keep communicators instead of rebuilding them
  kAsyncPinnedCopies,            // pinned host memory, copies on a side stream
  kRebalanceLateRank,            // make the rank that arrives last arrive with the others
  kKeepAllocations,              // keep device memory cached instead of freeing and reallocating
  kFasterKernels,                // faster kernels for the step's compute
  kPrefetchShardedGathers,    // sharded data parallel's gathers and reduce-scatters issued earlier
  kOverlapPipelineTransfers,  // pipeline sends and receives overlapped with compute
  kDeferMetricCollectives,    // metrics gathered later or together, off the step's path
  kShortenHostWork,           // less host work between launches already replayed from CUDA graphs
  kOverlapCopies,             // copies already pinned (or between devices) overlapped with compute
};

struct StrictRule {
  ChangeKind change;
  std::string_view change_name;  // "custom_allreduce"
  std::string_view id;           // "S3"
  StrictTag tag;                 // without a contract that declares the change
  std::string_view text;         // why, in one line
  // kNeedsContract rows: the declaration that makes the change eligible, in
  // words, and the test of a contract for it. Empty and null otherwise.
  std::string_view contract_declaration;
  bool (*declares)(const RunContract& contract);
};

// Every row, in table order.
std::span<const StrictRule> StrictRules();
const StrictRule& StrictRuleOf(ChangeKind change);

struct StrictVerdict {
  StrictTag tag = StrictTag::kNeedsContract;
  bool contract_declares = false;
  std::string rule_id;
  // "S3 custom_allreduce: <text>", then for kNeedsContract rows what the
  // contract declared.
  std::string rule;
};

// `contract`: the run's declared contract, if any.
StrictVerdict JudgeStrict(ChangeKind change, const std::optional<RunContract>& contract);

}  // namespace vprof::reporter
