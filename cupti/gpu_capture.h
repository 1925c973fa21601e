// GPU activity capture through CUPTI.
//
// Started from InitializeInjection (the CUDA driver calls it at cuInit when
// CUDA_INJECTION64_PATH names libvprof.so), so CUPTI is loaded only in
// processes that initialise CUDA. CUPTI hands over activity buffers on its own
// threads; they are queued and encoded by the writer thread.
//
// Locks: g_buffers_lock (activity_buffers.cc) guards the buffer pool and the
// completed queue; it is never held across a CUPTI call, and CUPTI calls
// bufferCompleted from inside cuptiActivityFlushAll, so the caller of
// RequestGpuFlush() must not hold it either. The writer's flush lock may be
// held across CUPTI calls: no CUPTI callback takes it.
//
// Exit: once libcupti is loaded, an exit handler of this file stops the
// writer's CUPTI calls (flushes, deep windows), asks CUPTI for its last
// records and writes them out (FlushTraceAtExit), then stops the reading of
// buffers, all before libcupti's own teardown; after it, RecordGpuActivity and
// RequestGpuFlush do nothing, and buffers CUPTI still hands over are counted
// unread in the GpuCaptureStatus.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/deep_schedule.h"
#include "common/gpu_kinds.h"
#include "interpose/core/capture_source.h"

namespace vprof {

class TraceWriter;

// Whether CUPTI collects now; NCCL wrappers then tag their calls.
extern std::atomic<bool> g_gpu_capture_active;

// Idempotent. Records the outcome (GpuCaptureStatus) for the trace.
// kinds: VPROF_CUPTI_KINDS (capture_plan.h maps them to CUPTI's). Under a `deep`
// schedule other than always, the plan's kinds wait for a deep window
// (RecordGpuActivity); DEVICE and the selected API records are enabled at
// start and stay on, the API records that begin between windows left out of
// the trace.
void StartGpuCapture(const GpuKinds& kinds, const DeepSchedule& deep);
// Writer thread, flush lock not held (disabling flushes CUPTI's buffers, and
// their completion callback queues them for the writer): enables (on) or
// disables the capture plan's kinds. `at_ns`: the instant the window opens or
// closes, as its DeepWindow packet says; the API records kept are those that
// began between the two. False while GPU capture is not active (CUDA not
// initialised yet, off, or the process exiting); a CUPTI refusal turns GPU
// capture off, recorded in its status.
bool RecordGpuActivity(bool on, uint64_t at_ns);
// Writer thread, after the trace ended at VPROF_STOP_AFTER_S: switches off the
// plan's kinds, so that the program no longer pays for kernel, copy and memset
// records nobody writes. The API records stay on: switching them while the
// program launches crashed CUPTI (gpu_capture.cc). GPU capture starting after
// this (CUDA initialised after the window, or still starting) records nothing.
void StopGpuRecording();
// False once VPROF_GPU=0 or another tool's injection hook was noted.
bool GpuCaptureWanted();
// In a forked child: CUPTI is the parent's (a flush there can hang), and the
// buffer lock may be held by a CUPTI thread that does not exist here.
void ResetGpuCaptureInChild();

// What vprof found in CUDA_INJECTION64_PATH at load: empty when it set the
// variable to itself (or found itself there), else the other tool's value.
void NoteCudaInjection(const char* found_value);
// Sets the state when GPU capture cannot start at all (setting off, or the
// injection hook belongs to another tool).
void NoteGpuCaptureUnavailable(const char* why);

// NCCL wrappers: tie the kernels a call launches to the call.
uint64_t PushGpuCorrelation();
void PopGpuCorrelation();

// Asks CUPTI to deliver buffered records (forced: also partly filled ones).
// Not from a signal handler.
void RequestGpuFlush(bool forced);

// Flush lock held (the writer thread, or the exit handler through
// FlushTraceAtExit): writes a changed GpuCaptureStatus and every queued activity
// buffer as packets. False when the trace cannot be written.
bool DrainGpuActivity(TraceWriter& writer);
// The Footer's "cupti" KindCount: activity records written, and dropped.
extern const SourceCount kCuptiCount;
// CUDA graphs' node lists (graph_nodes.h): written, and dropped with a full queue.
extern const SourceCount kGraphNodesCount;

}  // namespace vprof
