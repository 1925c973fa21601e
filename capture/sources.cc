// The capture sources' table: the one place that names every source the
// writer drains. Each row says why it is where it is; the order is the order
// of the packets in the trace, which the reporter reads in that order.
#include "sources.h"

#include "clock.h"
#include "deep_windows.h"
#include "device_memory_sampler.h"
#include "fingerprint_drain.h"
#include "gpu_capture.h"
#include "injection_status.h"
#include "loaded_libraries.h"
#include "nccl_drain.h"
#include "nccl_plugin.h"
#include "nvtx_batch_writer.h"
#include "process_title.h"
#include "thread_buffers.h"
#include "trace_writer.h"

namespace vprof {
namespace {

constexpr SourceDrain kDrains[] = {
    // As the trace begins, right after the RunHeader: every NcclEvent and
    // Communicator names its function by these ids.
    {.name = "NCCL function names",
     .pass = DrainPass::kTraceBegin,
     .drain = [](TraceWriter& w, bool) { return put_nccl_function_names(w); },
     .may_allocate = false,
     .signal_safe = true},
    // Before the NVTX ranges: a window that closed before a range ended is
    // read before that range (the step analysis asks which steps a window held).
    {.name = "deep windows",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return drain_deep_windows(w); },
     .may_allocate = true,
     .signal_safe = false},
    // Before the thread pass, so that a communicator's packet comes before
    // the calls on it drained in the same tick.
    {.name = "communicators",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return put_new_communicators(w); },
     .begin_trace = begin_communicators_trace,
     .may_allocate = false,
     .signal_safe = false},
    // A hook's change (NVTX attached, the plugin loaded) before the records
    // that hook brought, drained below.
    {.name = "injection status",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return put_injection_status(w); },
     .may_allocate = false,
     .signal_safe = false},
    // On the writer's ticks (read at most once a second), and once more as
    // the trace ends.
    {.name = "process title",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool final) {
           TitleWatch* watch = title_watch();
           return !watch || watch->put_changes(w, now_ns(), final);
         },
     .may_allocate = true,
     .signal_safe = false},
    {.name = "loaded libraries",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool final) {
           LoadedLibraryWatch* watch = loaded_library_watch();
           return !watch || watch->put_new(w, now_ns(), final);
         },
     .may_allocate = true,
     .signal_safe = false},
    // Each thread's records, after its ThreadDescriptor. A call's
    // fingerprints wait for it here (note_fingerprints) to follow its
    // NcclEvent.
    {.name = "NCCL calls",
     .pass = DrainPass::kEachThread,
     .drain_thread = [](TraceWriter& w,
                        ThreadBuffer& b) { return drain_nccl_calls(w, b, note_fingerprints); },
     .may_allocate = true,
     .signal_safe = false},
    {.name = "NVTX ranges",
     .pass = DrainPass::kEachThread,
     .drain_thread = write_nvtx_batches,
     .may_allocate = true,
     .signal_safe = false},
    // Start/end ranges lost from the open-range table. A count for the
    // Footer, no packet: its place changes no byte of the trace.
    {.name = "lost NVTX ranges",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool) {
           count_lost_open_ranges(w);
           return true;
         },
     .may_allocate = false,
     .signal_safe = true},
    // Every writer tick, so the plugin's per-communicator pools stay small.
    {.name = "NCCL profiler plugin events",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return drain_nccl_plugin(w); },
     .may_allocate = true,
     .signal_safe = false},
    // After the calls: a call's fingerprints follow its NcclEvent.
    {.name = "collective fingerprints",
     .pass = DrainPass::kEachTick,
     .drain = drain_fingerprints,
     .may_allocate = true,
     .signal_safe = false},
    // Records (calls and ranges) of threads that never got a buffer, counted
    // with the calls as they always were. A count, no packet, like the above.
    {.name = "records lost without a buffer",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool) {
           w.count(kNcclCallCount, 0, thread_buffers().take_lost_without_buffer());
           return true;
         },
     .may_allocate = false,
     .signal_safe = true},
    // flush() only: CUPTI hands its buffers over when request_gpu_flush()
    // asked for them, which the writer thread does before each flush.
    {.name = "GPU activity",
     .pass = DrainPass::kEachFlush,
     .drain = [](TraceWriter& w, bool) { return drain_gpu_activity(w); },
     .may_allocate = true,
     .signal_safe = false},
    // After the activity, which names the GPUs used.
    {.name = "device memory samples",
     .pass = DrainPass::kEachFlush,
     .drain =
         [](TraceWriter& w, bool final) {
           return device_memory_sampler().put_samples(
               w, now_ns(), uint64_t{w.settings().flush_interval_ms} * 1000000, final);
         },
     .may_allocate = true,
     .signal_safe = false},
};

// The Footer's order: the wrappers' calls first, always.
constexpr const SourceCount* kCounts[] = {&kNcclCallCount, &kCuptiCount, &kNvtxRangeCount,
                                          &kNcclPluginCount};
static_assert(std::size(kCounts) <= TraceWriter::kMaxCounts);

constexpr CaptureSources kSources{kDrains, kCounts};

}  // namespace

const CaptureSources& capture_sources() { return kSources; }

}  // namespace vprof
