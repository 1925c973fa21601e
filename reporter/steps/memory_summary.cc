#include "reporter/steps/memory_summary.h"

namespace vprof::reporter {

std::optional<RankMemorySummary> SummarizeMemory(const RankStepsReport& rank) {
  std::optional<RankMemorySummary> summary;
  uint64_t allocations = 0;
  uint64_t releases = 0;
  uint64_t allocated = 0;
  int64_t api_ns = 0;
  size_t steps = 0;
  for (const RankStepReport& step : rank.steps) {
    if (!step.memory) continue;
    const StepMemory& memory = *step.memory;
    if (!summary) {
      summary = RankMemorySummary{memory.peak_bytes, step.step, memory.low_bytes};
    } else {
      if (memory.peak_bytes > summary->peak_bytes) {
        summary->peak_bytes = memory.peak_bytes;
        summary->peak_step = step.step;
      }
      if (memory.low_bytes < summary->low_bytes) summary->low_bytes = memory.low_bytes;
    }
    allocations += memory.allocations;
    releases += memory.releases;
    allocated += memory.allocated_bytes;
    api_ns += memory.api_ns;
    ++steps;
  }
  if (!summary) return summary;
  const auto count = static_cast<double>(steps);
  summary->allocations = static_cast<double>(allocations) / count;
  summary->releases = static_cast<double>(releases) / count;
  summary->allocated_bytes = static_cast<double>(allocated) / count;
  summary->api_ns = api_ns / static_cast<int64_t>(steps);
  return summary;
}

}  // namespace vprof::reporter
