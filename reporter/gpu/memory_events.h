// A process's device memory as its trace tells it: the allocations and
// releases CUPTI reported (GpuMemoryOp), the time of the API calls that
// allocate, in trace order, and NVML's samples of each GPU's memory in use. A caching allocator
// (PyTorch's) calls cudaMalloc only to grow, so a process has few; they are kept, not totalled, so
// that each step can be given its own peak and churn once the steps are known.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/base/trace_forward.h"

namespace vprof::reporter {

// On the process's trace clock: an allocation (delta_bytes > 0) or a release
// (< 0) of device memory, or an allocation API call (delta 0, api_ns its
// duration, at_ns its start).
// Which kind of API call a MemoryEvent with api_ns is: one that allocates or
// frees, or a virtual-memory map or unmap (what memory savers offload and
// onload with).
enum class MemoryCall : uint8_t { kNone, kAllocateOrFree, kMap, kUnmap };

struct MemoryEvent {
  int64_t at_ns = 0;
  int64_t delta_bytes = 0;
  int64_t api_ns = 0;
  MemoryCall call = MemoryCall::kNone;
};

// A copy between device and host memory of at least kLargeTransferBytes
// (weights, optimizer state, KV cache moved out and back; smaller copies are
// inputs and results), on the trace clock.
inline constexpr uint64_t kLargeTransferBytes = uint64_t{1} << 20;
struct TransferEvent {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  uint64_t bytes = 0;
  bool to_host = false;  // device to host; else host to device
};

// At most this many events are kept per process (24 B each, 24 MiB); the
// rest are counted as dropped, and the figures say so.
inline constexpr size_t kMaxMemoryEvents = size_t{1} << 20;

// On the process's trace clock: one GPU's memory in use as NVML read it
// (DeviceMemorySample): the whole device, every process's.
struct DeviceMemorySampleRow {
  int64_t at_ns = 0;
  uint32_t device = 0;
  uint64_t used_bytes = 0;
  uint64_t total_bytes = 0;
};

struct MemoryRecord {
  bool recorded = false;  // the capture enabled CUPTI's MEMORY2 kind
  std::vector<MemoryEvent> events;
  uint64_t dropped_events = 0;
  // NVML's samples (kMaxMemoryEvents at most, the rest counted in
  // dropped_events), and whether sampling ran: none when the trace says
  // nothing of it (no kernels, or a capture older than sampling).
  std::vector<DeviceMemorySampleRow> samples;
  // Large device↔host copies (kMaxMemoryEvents at most, the rest counted in
  // dropped_events).
  std::vector<TransferEvent> transfers;
  std::optional<bool> sampling;
  std::string sampling_why_not;  // when it did not run
  uint64_t sampling_interval_ns = 0;

  void Add(const MemoryEvent& event) {
    if (events.size() < kMaxMemoryEvents) {
      events.push_back(event);
    } else {
      ++dropped_events;
    }
  }
  void AddTransfer(const TransferEvent& transfer) {
    if (transfers.size() < kMaxMemoryEvents) {
      transfers.push_back(transfer);
    } else {
      ++dropped_events;
    }
  }
  void AddSample(const DeviceMemorySampleRow& sample) {
    if (samples.size() < kMaxMemoryEvents) {
      samples.push_back(sample);
    } else {
      ++dropped_events;
    }
  }
};

// What a GpuMemoryOp does to the device memory a process holds: + its bytes
// for an allocation, − for a release; none for other memory (pinned host,
// managed) or an operation of another type.
std::optional<int64_t> DeviceMemoryDelta(const vprof::trace::GpuMemoryOp& op);

// A CUDA runtime or driver API that allocates or frees device memory, or maps
// and unmaps it (the virtual-memory calls memory savers use): cudaMalloc*,
// cudaFree*, cuMemAlloc*, cuMemFree*, cuMemCreate, cuMemRelease, cuMemMap,
// cuMemUnmap. Host (pinned) allocations are not device memory.
bool IsDeviceMemoryApi(std::string_view api_name);
// Which kind of call such an API is (kNone for any other API).
MemoryCall MemoryCallOf(std::string_view api_name);

// CUpti_ActivityMemcpyKind's host-to-device and device-to-host values.
inline constexpr uint32_t kHostToDeviceCopyKind = 1;
inline constexpr uint32_t kDeviceToHostCopyKind = 2;
// CUpti_ActivityMemoryKind's host memory: pageable (the driver stages the copy through a
// pinned buffer of its own, and the host waits) and pinned (page-locked: DMA, asynchronous).
inline constexpr uint32_t kPageableMemoryKind = 1;
inline constexpr uint32_t kPinnedMemoryKind = 2;

}  // namespace vprof::reporter
