// Allocator churn: device memory freed and allocated again inside the steps
// (a caching allocator emptied every step, or one that cannot reuse its
// blocks), each cudaFree waiting for the device and each cudaMalloc asking
// the driver again.
#include "reporter/base/rank_name.h"
#include "reporter/base/units.h"
#include "reporter/candidates/candidate_detectors.h"

namespace vprof::reporter {

void DetectAllocatorChurn(const Report& report, std::vector<DetectedCandidate>& out) {
  if (!report.steps) return;
  // The rank whose allocation calls cost most per measured step.
  const RankStepsReport* worst = nullptr;
  int64_t worst_per_step_ns = 0;
  for (const RankStepsReport& rank : report.steps->ranks) {
    if (rank.steps.empty() || rank.allocation_call_ns <= 0) continue;
    const int64_t per_step_ns = rank.allocation_call_ns / static_cast<int64_t>(rank.steps.size());
    if (!worst || per_step_ns > worst_per_step_ns) {
      worst = &rank;
      worst_per_step_ns = per_step_ns;
    }
  }
  if (!worst || worst_per_step_ns < kAllocatorChurnMinNs) return;
  const std::optional<int64_t>& median = report.steps->median_step_ns;
  if (median && *median > 0 &&
      static_cast<double>(worst_per_step_ns) <
          kAllocatorChurnMinShare * static_cast<double>(*median)) {
    return;
  }
  const uint64_t steps = worst->steps.size();
  CandidateReport candidate;
  candidate.kind = "allocator_churn";
  candidate.title = "Device memory freed and allocated again inside the steps";
  candidate.scope = CandidateScope::kOperator;
  candidate.exposed_ns = worst_per_step_ns;
  candidate.total_ns = worst_per_step_ns;
  candidate.count = worst->allocation_calls / steps;
  candidate.evidence.push_back(
      "operator scope: host time of cudaMalloc*/cudaFree*/cuMem* calls that started in the " +
      std::to_string(steps) + " measured steps of " + RankName(worst->rank, worst->file) +
      " (the most per step), not a step gain: " + std::to_string(worst->allocation_calls) +
      " calls, " + FormatDurationNs(worst->allocation_call_ns));
  candidate.evidence.push_back(
      "a caching allocator that keeps its blocks (no torch.cuda.empty_cache() in the loop; "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True where fragmentation forces new "
      "segments) makes none");
  out.push_back({ChangeKind::kKeepAllocations, std::move(candidate)});
}

}  // namespace vprof::reporter
