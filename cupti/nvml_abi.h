// The parts of NVML's C interface (libnvidia-ml.so.1, shipped with every
// NVIDIA driver) that vprof calls, declared from NVML's reference manual:
// the CUDA toolkit vprof builds with does not ship nvml.h, and these
// declarations have kept their layout since NVML's first releases.
#pragma once

namespace vprof::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t

// nvmlMemory_t: the whole device's memory, every process's allocations and
// the driver's own in `used`.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

}  // namespace vprof::nvml
