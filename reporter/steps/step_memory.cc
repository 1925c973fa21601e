#include "reporter/steps/step_memory.h"

#include <algorithm>

namespace vprof::reporter {

void AddStepMemory(const MemoryRecord& record, int64_t offset_ns,
                   std::vector<RankStepReport>& steps) {
  if (!record.recorded) return;
  // CUPTI hands buffers over out of order: by time, allocations and releases
  // at one instant in the order read.
  std::vector<MemoryEvent> events = record.events;
  std::stable_sort(events.begin(), events.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.at_ns < b.at_ns; });
  int64_t held = 0;
  auto next = events.begin();
  for (RankStepReport& step : steps) {
    for (; next != events.end() && next->at_ns + offset_ns < step.start_ns; ++next) {
      held += next->delta_bytes;
    }
    StepMemory memory;
    memory.start_bytes = memory.peak_bytes = memory.low_bytes = held;
    for (; next != events.end() && next->at_ns + offset_ns <= step.end_ns; ++next) {
      held += next->delta_bytes;
      memory.peak_bytes = std::max(memory.peak_bytes, held);
      memory.low_bytes = std::min(memory.low_bytes, held);
      memory.api_ns += next->api_ns;
      if (next->delta_bytes > 0) {
        ++memory.allocations;
        memory.allocated_bytes += static_cast<uint64_t>(next->delta_bytes);
      } else if (next->delta_bytes < 0) {
        ++memory.releases;
        memory.released_bytes += static_cast<uint64_t>(-next->delta_bytes);
      }
    }
    step.memory = memory;
  }
}

}  // namespace vprof::reporter
