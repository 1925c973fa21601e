#include "reporter/steps/step_memory.h"

#include <algorithm>
#include <map>
#include <utility>

namespace vprof::reporter {

namespace {

// The device memory a process held over time: its allocations and releases
// by time (CUPTI hands buffers over out of order; at one instant, in the
// order read), and what was held after each.
class HeldMemory {
 public:
  explicit HeldMemory(const std::vector<MemoryEvent>& events) {
    std::vector<MemoryEvent> changes;
    for (const MemoryEvent& event : events) {
      if (event.delta_bytes != 0) changes.push_back(event);
    }
    std::stable_sort(changes.begin(), changes.end(),
                     [](const MemoryEvent& a, const MemoryEvent& b) { return a.at_ns < b.at_ns; });
    at_ns_.reserve(changes.size());
    held_after_.reserve(changes.size());
    int64_t held = 0;
    for (const MemoryEvent& change : changes) {
      at_ns_.push_back(change.at_ns);
      held_after_.push_back(held += change.delta_bytes);
    }
  }

  struct Figures {
    int64_t start_bytes = 0;
    int64_t peak_bytes = 0;
    int64_t low_bytes = 0;
  };
  // Over [start_ns, end_ns] (trace clock): held at the start, and the most
  // and least held at any instant of it.
  Figures Over(int64_t start_ns, int64_t end_ns) const {
    const auto first = std::lower_bound(at_ns_.begin(), at_ns_.end(), start_ns);
    const auto last = std::upper_bound(first, at_ns_.end(), end_ns);
    const auto held = held_after_.begin() + (first - at_ns_.begin());
    Figures figures;
    figures.start_bytes = first == at_ns_.begin() ? 0 : *std::prev(held);
    figures.peak_bytes = figures.low_bytes = figures.start_bytes;
    for (auto after = held; after != held + (last - first); ++after) {
      figures.peak_bytes = std::max(figures.peak_bytes, *after);
      figures.low_bytes = std::min(figures.low_bytes, *after);
    }
    return figures;
  }

 private:
  std::vector<int64_t> at_ns_;       // the changes' times, in order
  std::vector<int64_t> held_after_;  // held after each
};

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

void AddStepMemory(const MemoryRecord& record, int64_t offset_ns,
                   std::vector<RankStepReport>& steps) {
  if (!record.recorded) return;
  const HeldMemory held(record.events);
  for (RankStepReport& step : steps) {
    const HeldMemory::Figures figures =
        held.Over(step.start_ns - offset_ns, step.end_ns - offset_ns);
    StepMemory& memory = step.memory.emplace();
    memory.start_bytes = figures.start_bytes;
    memory.peak_bytes = figures.peak_bytes;
    memory.low_bytes = figures.low_bytes;
  }
  // Each event to one step, as StepAt gives it (windows may share an end).
  for (const MemoryEvent& event : record.events) {
    RankStepReport* step = StepAt(steps, event.at_ns + offset_ns);
    if (!step) continue;
    StepMemory& memory = *step->memory;
    memory.api_ns += event.api_ns;
    if (event.delta_bytes > 0) {
      ++memory.allocations;
      memory.allocated_bytes += static_cast<uint64_t>(event.delta_bytes);
    } else if (event.delta_bytes < 0) {
      ++memory.releases;
      memory.released_bytes += static_cast<uint64_t>(-event.delta_bytes);
    }
  }
}

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

void AddPhaseMemory(const MemoryRecord& record, int64_t offset_ns,
                    const std::vector<PhaseWindow>& spans, RankStepsReport& rank) {
  std::optional<HeldMemory> held;
  if (record.recorded) held.emplace(record.events);
  // The rank's GPU's samples, on the report's clock (in time order, as read).
  std::vector<const DeviceMemorySampleRow*> samples;
  if (rank.device_memory) {
    for (const DeviceMemorySampleRow& sample : record.samples) {
      if (sample.device == rank.device_memory->device) samples.push_back(&sample);
    }
  }
  std::map<std::pair<std::string_view, bool>, PhaseMemoryReport> phases;
  for (const PhaseWindow& span : spans) {
    PhaseMemoryReport& phase = phases[{span.phase, span.from_nvtx}];
    ++phase.steps;
    if (held) {
      const HeldMemory::Figures figures =
          held->Over(span.start_ns - offset_ns, span.end_ns - offset_ns);
      if (!phase.held) {
        phase.held = {figures.peak_bytes, span.step, figures.low_bytes};
      } else {
        if (figures.peak_bytes > phase.held->peak_bytes) {
          phase.held->peak_bytes = figures.peak_bytes;
          phase.held->peak_step = span.step;
        }
        phase.held->low_bytes = std::min(phase.held->low_bytes, figures.low_bytes);
      }
    }
    const auto first = std::lower_bound(
        samples.begin(), samples.end(), span.start_ns,
        [&](const DeviceMemorySampleRow* s, int64_t ns) { return s->at_ns + offset_ns < ns; });
    for (auto sample = first;
         sample != samples.end() && (*sample)->at_ns + offset_ns <= span.end_ns; ++sample) {
      if (!phase.device_memory) phase.device_memory.emplace();
      AddSample(*phase.device_memory, (*sample)->used_bytes);
    }
  }
  rank.phase_memory.clear();
  for (auto& [key, phase] : phases) {
    phase.phase = std::string(key.first);
    phase.from_nvtx = key.second;
    rank.phase_memory.push_back(std::move(phase));
  }
}

}  // namespace vprof::reporter
