#include "reporter/candidates/strict_rules.h"

#include <array>
#include <stdexcept>

namespace vprof::reporter {
namespace {

bool DeclaresCustomAllReduce(const RunContract& contract) {
  return contract.custom_allreduce_allowed ||
         contract.all_reduce_backend == AllReduceBackend::kCustomAllReduce ||
         contract.fallback_axes.contains(ConsistencyAxis::kAllReduceBackend);
}

// One declared algorithm freezes it; a list of several lets the run move
// between them.
bool DeclaresAlgorithmChange(const RunContract& contract) {
  return contract.fallback_axes.contains(ConsistencyAxis::kNcclAlgo) ||
         contract.nccl_algorithms.size() > 1;
}

using enum ChangeKind;
using enum StrictTag;

// Changes that move the same bytes, or run the same kernels on the same
// values in the same order, keep every result bitwise: eligible. Changes that
// alter which values reduce together, or in which order, are what strict
// consistency freezes: not eligible, or eligible only where the contract
// declares that axis.
constexpr std::array kRules = {
    StrictRule{kFuseElementwiseSameOrder, "fuse_elementwise_same_order", "S1", kEligible,
               "fusing elementwise kernels without reordering any reduction computes the same "
               "values per element",
               "", nullptr},
    StrictRule{kCudaGraphCapture, "cuda_graph_capture", "S2", kEligible,
               "a captured graph replays the same kernels with the same arguments in the same "
               "order; only launch cost changes",
               "", nullptr},
    StrictRule{kCustomAllReduce, "custom_allreduce", "S3", kNeedsContract,
               "a custom all-reduce sums in another order than NCCL, so results differ bitwise",
               "custom_allreduce_allowed: true, all_reduce_backend: \"custom_allreduce\", or "
               "fallback_axes with \"all_reduce_backend\"",
               DeclaresCustomAllReduce},
    StrictRule{kOverlapRegroupingReductions, "overlap_regrouping_reductions", "S4", kNotEligible,
               "regrouping gradients to overlap them changes bucket boundaries and the reduction "
               "order strict mode freezes",
               "", nullptr},
    StrictRule{kOverlapSameBuckets, "overlap_same_buckets", "S5", kEligible,
               "issuing the same buckets earlier, in the same order, reduces the same values the "
               "same way",
               "", nullptr},
    StrictRule{kBucketFusion, "bucket_fusion", "S6", kNotEligible,
               "merging buckets moves bucket boundaries, which strict mode freezes", "", nullptr},
    StrictRule{kNcclAlgorithmChange, "nccl_algorithm_change", "S7", kNeedsContract,
               "another NCCL algorithm reduces in another order, so results differ bitwise",
               "fallback_axes with \"nccl_algo\", or nccl.algorithms listing more than one "
               "algorithm",
               DeclaresAlgorithmChange},
    StrictRule{kBatchIpcHandles, "batch_ipc_handles", "S8", kEligible,
               "opening IPC handles in batches maps the same buffers; no value changes", "",
               nullptr},
    StrictRule{kBatchWeightBroadcasts, "batch_weight_broadcasts", "S9", kEligible,
               "a broadcast copies bytes without arithmetic, so fewer larger ones deliver the "
               "same weights",
               "", nullptr},
    StrictRule{kReuseCommunicators, "reuse_communicators", "S10", kEligible,
               "keeping a communicator keeps its members and configuration; rebuilding only adds "
               "init cost",
               "", nullptr},
    StrictRule{kAsyncPinnedCopies, "async_pinned_copies", "S11", kEligible,
               "pinned, asynchronous copies move the same bytes earlier; no arithmetic changes", "",
               nullptr},
    StrictRule{kRebalanceLateRank, "rebalance_late_rank", "S12", kEligible,
               "a rank that arrives sooner changes when a collective starts, not what it sums or "
               "in which order; moving work between ranks is a different change, judged on its "
               "own",
               "", nullptr},
    StrictRule{kKeepAllocations, "keep_allocations", "S13", kEligible,
               "where a tensor lives changes no arithmetic: keeping blocks cached (no "
               "empty_cache in the loop, expandable_segments) runs the same kernels on the same "
               "values; assumes no kernel picks its path by address beyond the allocator's "
               "alignment, which both keep",
               "", nullptr},
    StrictRule{kFasterKernels, "faster_kernels", "S14", kNotEligible,
               "a faster kernel for the same operator (other tiles, split-K, fusion, lower "
               "precision) may accumulate in another order; strict mode keeps the kernels, so "
               "only running them sooner is open to it",
               "", nullptr},
    StrictRule{kPrefetchShardedGathers, "prefetch_sharded_gathers", "S15", kEligible,
               "issuing the same all-gathers and reduce-scatters earlier, with the same shards in "
               "the same order, gathers and reduces the same values the same way",
               "", nullptr},
    StrictRule{kOverlapPipelineTransfers, "overlap_pipeline_transfers", "S16", kEligible,
               "sending the same activations and gradients earlier moves the same bytes; no "
               "arithmetic changes",
               "", nullptr},
    StrictRule{kDeferMetricCollectives, "defer_metric_collectives", "S17", kEligible,
               "gathering metrics later or together moves the same bytes, and no training value "
               "depends on when they are gathered",
               "", nullptr},
    StrictRule{kShortenHostWork, "shorten_host_work", "S18", kEligible,
               "less host work between the launches (fewer synchronizations, work moved off the "
               "loop) launches the same graphs and kernels in the same order; no arithmetic "
               "changes",
               "", nullptr},
    StrictRule{kOverlapCopies, "overlap_copies", "S19", kEligible,
               "copies issued on a side stream, earlier, overlapped with compute, move the same "
               "bytes; no arithmetic changes",
               "", nullptr},
};

}  // namespace

std::span<const StrictRule> StrictRules() { return kRules; }

const StrictRule& StrictRuleOf(ChangeKind change) {
  for (const StrictRule& rule : kRules) {
    if (rule.change == change) return rule;
  }
  throw std::logic_error("strict rule table has no row for a change kind");
}

StrictVerdict JudgeStrict(ChangeKind change, const std::optional<RunContract>& contract) {
  const StrictRule& row = StrictRuleOf(change);
  StrictVerdict verdict{
      row.tag, false, std::string(row.id),
      std::string(row.id) + " " + std::string(row.change_name) + ": " + std::string(row.text)};
  if (row.tag != kNeedsContract) return verdict;
  verdict.contract_declares = contract && row.declares(*contract);
  if (verdict.contract_declares) {
    verdict.tag = kEligible;
    verdict.rule += "; eligible: contract " + contract->file + " declares it";
  } else {
    verdict.rule +=
        "; eligible only when the contract declares " + std::string(row.contract_declaration);
  }
  return verdict;
}

}  // namespace vprof::reporter
