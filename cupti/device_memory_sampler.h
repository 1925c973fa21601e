// Device memory in use on the GPUs this process runs kernels on, read from
// NVML on the writer's ticks: the cheap, always-on source of the report's
// memory figures (peak and low per step, headroom), where CUPTI's MEMORY2
// records (exact, per allocation) cost too much to be on by default.
//
// NVML reports the whole device (every process's memory and the driver's):
// under vime's colocation, what training and rollout hold together, which
// is what decides whether the next allocation fits.
//
// Writer thread only, with the flush lock held: the devices are learnt from
// the activity records it drains (DEVICE records give each GPU's UUID,
// kernel records the GPUs used), NVML is loaded at the first tick that has a
// GPU to read (a dlopen with the flush lock held; no loader callback takes
// it), and each tick reads each GPU once (one ioctl in the driver).
#pragma once

#include <cupti.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "cupti/nvml_library.h"

namespace vprof {

class TraceWriter;

class DeviceMemorySampler {
 public:
  // CUDA ordinals this process may read (one bit each).
  static constexpr uint32_t kMostDevices = 64;
  using Loader = bool (*)(NvmlLibrary* lib, std::string* error);

  explicit DeviceMemorySampler(Loader load) : load_(load) {}
  // A drained activity record: notes a DEVICE record's UUID, and the device
  // a kernel ran on.
  void Note(const CUpti_Activity* record);
  // Reads every used GPU whose UUID is known and writes the readings, when
  // half an interval passed since the last (writer ticks come every
  // interval, and also when buffers fill) or at once when `at_end`. The
  // first time there is a GPU to read, loads NVML and writes whether
  // sampling works (DeviceMemorySampling). False when the trace cannot be
  // written.
  bool PutSamples(TraceWriter& writer, uint64_t now_ns, uint64_t interval_ns, bool at_end);
  // In a forked child: no GPU of the parent's is the child's to report.
  void ResetInChild();
  // Until it knows a GPU this process ran kernels on, and while sampling may
  // still start: CUPTI hands over a buffer only once it is full, which in a
  // light process may take minutes, so the writer asks for partly filled
  // ones (a forced flush) on its ticks until then: a few ticks per process.
  bool WaitingForDevice() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  enum class State : uint8_t { kWaiting, kSampling, kOff };
  bool Start(TraceWriter& writer, uint64_t interval_ns, uint64_t readable);
  nvml::Device Handle(uint32_t device);

  Loader load_;
  NvmlLibrary nvml_{};
  State state_ = State::kWaiting;
  uint64_t used_mask_ = 0;   // devices with kernels
  uint64_t known_mask_ = 0;  // devices with a UUID
  std::array<std::array<char, 16>, kMostDevices> uuid_{};
  std::array<nvml::Device, kMostDevices> handle_{};
  uint64_t handle_failed_mask_ = 0;  // NVML knows no such UUID: not read again
  uint64_t last_sample_ns_ = 0;
  // Read by the writer thread outside the flush lock; set by its holder.
  std::atomic<bool> waiting_{true};
};

// The process's sampler (NVML from libnvidia-ml.so.1); never destroyed.
DeviceMemorySampler& GlobalDeviceMemorySampler();

}  // namespace vprof
