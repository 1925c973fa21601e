// Deep windows: under a VPROF_DEEP schedule other than always, GPU activity is
// recorded only while a window is open (deep_schedule.h). The writer thread
// follows the schedule: each tick it opens or closes the window through
// RecordGpuActivity (gpu_capture.h), and at most once per flush interval it
// reads the trigger file (VPROF_OUTPUT_DIR/vprof.trigger) for a window asked
// for on demand. Each opening and closing becomes a DeepWindow packet.
//
// Locks: g_windows_lock (deep_windows.cc) guards the packets waiting to be
// written; it is never held across a CUPTI call or a file access.
#pragma once

#include <cstdint>
#include <string>

#include "common/deep_schedule.h"

namespace vprof {

class TraceWriter;

// At initialisation, before the writer thread starts. Does nothing under
// always.
void ConfigureDeepWindows(const DeepSchedule& schedule, const std::string& output_dir,
                          uint64_t trigger_poll_ns);
// Writer thread, every tick, flush lock not held: opens or closes the window
// as the schedule and the latest trigger say. Clocks: CLOCK_MONOTONIC (the
// trace's) and CLOCK_REALTIME (the schedule's) of the same instant.
void UpdateDeepWindows(uint64_t now_ns, uint64_t now_realtime_ns);
// Flush lock held: a DeepWindow packet for each opening and closing since the
// last call. False when the trace cannot be written.
bool DrainDeepWindows(TraceWriter& writer);
// In a forked child: no GPU capture, no windows (ResetGpuCaptureInChild).
void ResetDeepWindowsInChild();

}  // namespace vprof
