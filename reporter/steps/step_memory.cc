#include "reporter/steps/step_memory.h"

#include <algorithm>
#include <map>

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

namespace {

void AddSample(SampledDeviceMemory& memory, uint64_t used_bytes) {
  if (memory.samples == 0) {
    memory.peak_used_bytes = memory.low_used_bytes = used_bytes;
  } else {
    memory.peak_used_bytes = std::max(memory.peak_used_bytes, used_bytes);
    memory.low_used_bytes = std::min(memory.low_used_bytes, used_bytes);
  }
  ++memory.samples;
}

// The step whose window holds `at_ns` (on the report's clock), if any.
RankStepReport* StepAt(std::vector<RankStepReport>& steps, int64_t at_ns) {
  auto after =
      std::upper_bound(steps.begin(), steps.end(), at_ns,
                       [](int64_t at, const RankStepReport& s) { return at < s.start_ns; });
  if (after == steps.begin()) return nullptr;
  RankStepReport& step = *std::prev(after);
  return at_ns <= step.end_ns ? &step : nullptr;
}

}  // namespace

void AddAllocationCalls(const MemoryRecord& record, int64_t offset_ns, RankStepsReport& rank) {
  for (const MemoryEvent& event : record.events) {
    if (event.api_ns == 0 || !StepAt(rank.steps, event.at_ns + offset_ns)) continue;
    ++rank.allocation_calls;
    rank.allocation_call_ns += event.api_ns;
  }
}

void AddStepTransfers(const MemoryRecord& record, int64_t offset_ns, RankStepsReport& rank) {
  for (const TransferEvent& copy : record.transfers) {
    RankStepReport* step = StepAt(rank.steps, copy.start_ns + offset_ns);
    if (!step) continue;
    StepTransfers& moved = step->transfers ? *step->transfers : step->transfers.emplace();
    if (copy.to_host) {
      ++moved.to_host_copies;
      moved.to_host_bytes += copy.bytes;
      moved.to_host_ns += copy.duration_ns;
    } else {
      ++moved.to_device_copies;
      moved.to_device_bytes += copy.bytes;
      moved.to_device_ns += copy.duration_ns;
    }
  }
  for (const MemoryEvent& event : record.events) {
    if (event.call != MemoryCall::kMap && event.call != MemoryCall::kUnmap) continue;
    RankStepReport* step = StepAt(rank.steps, event.at_ns + offset_ns);
    if (!step) continue;
    StepTransfers& moved = step->transfers ? *step->transfers : step->transfers.emplace();
    ++(event.call == MemoryCall::kMap ? moved.maps : moved.unmaps);
    moved.map_call_ns += event.api_ns;
  }
}

void AddSampledDeviceMemory(const MemoryRecord& record, int64_t offset_ns, RankStepsReport& rank) {
  if (record.sampling == false) rank.memory_unavailable = record.sampling_why_not;
  // The GPU sampled most inside the steps.
  std::map<uint32_t, uint32_t> in_steps;
  for (const DeviceMemorySampleRow& sample : record.samples) {
    if (StepAt(rank.steps, sample.at_ns + offset_ns)) ++in_steps[sample.device];
  }
  if (in_steps.empty()) return;
  const uint32_t device =
      std::max_element(in_steps.begin(), in_steps.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  RankDeviceMemory figures;
  figures.device = device;
  figures.interval_ns = record.sampling_interval_ns;
  // Samples come in the order read, which is time order.
  for (const DeviceMemorySampleRow& sample : record.samples) {
    if (sample.device != device) continue;
    RankStepReport* step = StepAt(rank.steps, sample.at_ns + offset_ns);
    if (!step) continue;
    if (!step->device_memory) step->device_memory.emplace();
    AddSample(*step->device_memory, sample.used_bytes);
    if (figures.sampled.samples == 0 || sample.used_bytes > figures.sampled.peak_used_bytes) {
      figures.peak_step = step->step;
      figures.total_bytes = sample.total_bytes;
    }
    AddSample(figures.sampled, sample.used_bytes);
  }
  rank.device_memory = figures;
}

}  // namespace vprof::reporter
