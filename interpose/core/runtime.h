// The capture runtime: the process-wide state the hot path consults, and its
// one way in. Defined in runtime.cc, which starts, ticks, flushes, forks and
// ends the sources through the table handed to EnsureInitialized
// (capture_source.h) and names none of them: the sources call down into the
// runtime, never the runtime up into a source.
#pragma once

#include <atomic>
#include <cstdint>

#include "interpose/core/capture_source.h"
#include "interpose/core/nccl_record.h"

namespace vprof {

enum class RunState : uint32_t {
  kUninitialised,
  kWaiting,    // before the capture window (VPROF_START_AFTER_S)
  kRecording,  // inside the capture window
  kFinished,   // window closed, process exiting, or trace ended
  kDisabled,   // VPROF_ENABLE=0, a bad setting or an internal failure
};

extern std::atomic<RunState> g_run_state;

// Idempotent; every way into a process (the library's constructor, an
// intercepted call, an injection hook) ends here, handing over the sources'
// table (interpose/sources.h), which the first call keeps.
void EnsureInitialized(const CaptureSources& sources);

// The CUDA driver called the injection hook (cuInit): the sources of
// StartStage::kAtCudaInit start, with the settings parsed at initialisation.
// Nothing while vprof is off or not initialised.
void StartAtCudaInit();

// Whether wrappers keep vprof's bookkeeping (sequence numbers, communicators)
// current: true from initialisation until vprof is disabled.
inline bool RuntimeTracking() {
  RunState s = g_run_state.load(std::memory_order_relaxed);
  return s == RunState::kWaiting || s == RunState::kRecording || s == RunState::kFinished;
}

// Whether the trace is still being written: before or inside the capture
// window, not yet finished or disabled.
inline bool TraceOpen(RunState s) { return s == RunState::kWaiting || s == RunState::kRecording; }

inline bool RuntimeRecording() {
  return g_run_state.load(std::memory_order_relaxed) == RunState::kRecording;
}

// Writes every source's records out now, on the calling thread. For an exit
// handler that must see records drained before a vendor library's teardown
// (gpu_capture.cc): it keeps to the exit's bound on writes, waiting for a
// writer tick that holds the flush lock no longer (runtime.cc). Not from a
// drain, which holds the flush lock (it would wait out the bound). False
// when nothing was written (not recording, the flush lock not taken in time,
// or a write failed or stalled, which disables vprof as the writer's own
// failures do).
bool FlushTraceAtExit();

// Hot path: hands a finished record to this thread's buffer; never blocks.
void Submit(const NcclRecord& r);

}  // namespace vprof
