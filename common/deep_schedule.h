// When GPU activity is recorded (VPROF_DEEP), and the trigger file that opens
// a window on demand. Pure code, shared by the capture side (which follows the
// schedule) and the launcher (`vprof trigger` writes the file).
//
// Outside a deep window only NCCL calls, NVTX ranges and the NCCL plugin's
// events are recorded: that costs the program next to nothing, where CUPTI's
// kernel and API records cost host-bound work a large share of its time. A
// duty cycle and triggers both go by the wall clock, so every process of a job
// opens and closes its windows at the same instants, whatever its start time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vprof {

struct DeepSchedule {
  enum class Mode : uint8_t {
    kAlways,     // GPU activity for the whole run (the default)
    kTrigger,    // only inside triggered windows
    kDutyCycle,  // the last on_ns of every period_ns, and triggered windows
  };
  Mode mode = Mode::kAlways;
  uint64_t on_ns = 0;
  uint64_t period_ns = 0;
};

// "always", "trigger" or "ON/PERIOD" in seconds (decimals allowed; 0 < ON <
// PERIOD <= 86400). False on anything else.
bool ParseDeepSchedule(std::string_view text, DeepSchedule* out);
// The schedule as ParseDeepSchedule reads it ("always", "trigger", "5/60").
std::string DeepScheduleText(const DeepSchedule& schedule);
inline constexpr const char* kDeepScheduleExpected =
    "always, trigger, or ON/PERIOD in seconds with 0 < ON < PERIOD <= 86400 (e.g. 5/60)";

// Whether a duty cycle has `realtime_ns` (CLOCK_REALTIME) in a window: the
// last on_ns of each period, periods counted from the epoch.
bool InDutyWindow(const DeepSchedule& schedule, uint64_t realtime_ns);

// A window asked for by a trigger file, on CLOCK_REALTIME: [start, end).
struct TriggerWindow {
  uint64_t start_realtime_ns = 0;
  uint64_t end_realtime_ns = 0;
};

// The trigger file's name inside VPROF_OUTPUT_DIR (a run's folder).
inline constexpr const char* kTriggerFileName = "vprof.trigger";
// The longest window one trigger opens, and the most bytes a trigger file may
// hold: deep capture is for a few steps, not for the rest of a run.
inline constexpr uint64_t kMaxTriggerWindowNs = 3600ull * 1000000000ull;
inline constexpr size_t kMaxTriggerFileBytes = 128;

// One line: "vprof-trigger 1 START_NS END_NS\n" (CLOCK_REALTIME nanoseconds).
std::string FormatTrigger(const TriggerWindow& window);
// False (with *error saying what was expected) unless `text` is exactly what
// FormatTrigger writes, with START < END <= START + kMaxTriggerWindowNs.
bool ParseTrigger(std::string_view text, TriggerWindow* out, std::string* error);

}  // namespace vprof
