// Each measured step's device memory from a process's memory events
// (StepMemory) and NVML's samples (SampledDeviceMemory): the steps are known
// only once the trace is read, the events were kept for this.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "reporter/gpu/memory_events.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// Sets `memory` of every step in `steps` (windows on the report's clock, in
// start order, not overlapping) from `record`'s events (on the trace clock;
// `offset_ns` moves them onto the report's). Leaves them unset when the
// capture did not record memory.
void AddStepMemory(const MemoryRecord& record, int64_t offset_ns,
                   std::vector<RankStepReport>& steps);

// Counts the rank's allocation API calls that started in its measured steps
// (allocation_calls, allocation_call_ns), whether or not MEMORY2 was recorded.
void AddAllocationCalls(const MemoryRecord& record, int64_t offset_ns, RankStepsReport& rank);

// Sets `transfers` of each of the rank's steps that copied memory between
// device and host in large copies (by the copy's start) or unmapped or mapped
// virtual memory (by the call's start).
void AddStepTransfers(const MemoryRecord& record, int64_t offset_ns, RankStepsReport& rank);

// Sets `device_memory` of each of the rank's steps that holds an NVML sample
// and of the rank (over its measured steps), on the GPU sampled most in them;
// `memory_unavailable` when the capture could not sample.
void AddSampledDeviceMemory(const MemoryRecord& record, int64_t offset_ns, RankStepsReport& rank);

// One phase's span in one measured step (PhaseSpan), on the report's clock.
struct PhaseWindow {
  std::string_view phase;
  bool from_nvtx = true;
  uint32_t step = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Sets `phase_memory` of the rank from its phases' spans (in step order):
// the memory held, when the capture recorded it, and the samples of the
// rank's GPU, so after AddSampledDeviceMemory.
void AddPhaseMemory(const MemoryRecord& record, int64_t offset_ns,
                    const std::vector<PhaseWindow>& spans, RankStepsReport& rank);

}  // namespace vprof::reporter
