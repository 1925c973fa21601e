// The VPROF_* settings, parsed in one place into typed values: by libvprof.so
// once, at initialisation, from the environment; by `vprof run` for the
// options that set them (launch/launch_options.cc), before anything starts.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/deep_schedule.h"
#include "common/gpu_kinds.h"

namespace vprof {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

// The largest VPROF_BUFFER_KB: each recording thread's ring of each kind is
// this big and allocated whole, so the old maximum of 1 GiB made a 2-rank run
// of the stand-ins 2.7 GB per process and 80 times slower; 16 MiB (16 times
// the default) costs neither (bench/RESULTS.md, 2026-12-02 (b5f56da)).
inline constexpr uint32_t kMaxBufferKib = 16384;

struct Settings {
  bool enabled = true;                      // VPROF_ENABLE
  std::string output_dir = "vprof-traces";  // VPROF_OUTPUT_DIR
  uint32_t flush_interval_ms = 250;         // VPROF_FLUSH_MS
  uint32_t buffer_kib = 1024;               // VPROF_BUFFER_KB (per recording thread)
  double start_after_s = 0;                 // VPROF_START_AFTER_S
  double stop_after_s = 0;                  // VPROF_STOP_AFTER_S (0: never)
  LogLevel log_level = LogLevel::kWarn;     // VPROF_LOG_LEVEL
  bool gpu_capture = true;                  // VPROF_GPU (CUPTI activity)
  GpuKinds gpu_kinds = LightGpuKinds();     // VPROF_CUPTI_KINDS (gpu_kinds.h)
  // VPROF_DEEP: when GPU activity is recorded (deep_schedule.h).
  DeepSchedule deep;
  // NCCL's profiler plugin interface (nccl_plugin.h).
  bool nccl_plugin = true;  // VPROF_NCCL_PLUGIN: claim NCCL_PROFILER_PLUGIN, enable events
  bool nccl_kernel_ch =
      false;  // VPROF_NCCL_KERNEL_CH: per-channel GPU times (costly on small messages)
  bool nccl_proxy = false;  // VPROF_NCCL_PROXY: network proxy operations
  // Collective fingerprints (interpose/audit/fingerprinter.h).
  bool audit_fingerprints = false;  // VPROF_AUDIT=fingerprint (off: VPROF_AUDIT=off or unset)
  uint64_t audit_every = 1;         // VPROF_AUDIT_EVERY: every N-th collective per communicator
  uint64_t audit_min_bytes = 0;     // VPROF_AUDIT_MIN_BYTES: smaller buffers are not fingerprinted
};

// Reads a setting by name; returns nullptr when unset. Tests pass their own.
using SettingLookup = std::function<const char*(const char* name)>;

struct SettingsResult {
  Settings settings;
  // Empty when every setting was valid; otherwise one line naming the first
  // bad variable and what was expected. A bad setting turns profiling off.
  std::string error;
  std::string expected;  // the error's "what was expected" alone
};

SettingsResult ParseSettings(const SettingLookup& lookup);

// What a setting's value should have been, when it is refused (the rest of
// the environment unset); nothing when it is valid.
std::optional<std::string> SettingRefused(const char* name, const std::string& value);

}  // namespace vprof
