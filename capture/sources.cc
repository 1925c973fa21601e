// The capture sources' table: the one place that names every source the
// writer drains. Each row says why it is where it is; the order is the order
// of the packets in the trace, which the reporter reads in that order.
#include "capture/sources.h"

#include "capture/audit/fingerprint_drain.h"
#include "capture/core/clock.h"
#include "capture/core/injection_status.h"
#include "capture/core/loaded_libraries.h"
#include "capture/core/process_title.h"
#include "capture/core/thread_buffers.h"
#include "capture/core/trace_writer.h"
#include "capture/cupti/deep_windows.h"
#include "capture/cupti/device_memory_sampler.h"
#include "capture/cupti/gpu_capture.h"
#include "capture/nccl/nccl_drain.h"
#include "capture/nccl_plugin/nccl_plugin.h"
#include "capture/nvtx/nvtx_batch_writer.h"

namespace vprof {
namespace {

constexpr SourceDrain kDrains[] = {
    // As the trace begins, right after the RunHeader: every NcclEvent and
    // Communicator names its function by these ids.
    {.name = "NCCL function names",
     .pass = DrainPass::kTraceBegin,
     .drain = [](TraceWriter& w, bool) { return PutNcclFunctionNames(w); },
     .may_allocate = false,
     .signal_safe = true},
    // Before the NVTX ranges: a window that closed before a range ended is
    // read before that range (the step analysis asks which steps a window held).
    {.name = "deep windows",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return DrainDeepWindows(w); },
     .may_allocate = true,
     .signal_safe = false},
    // Before the thread pass, so that a communicator's packet comes before
    // the calls on it drained in the same tick.
    {.name = "communicators",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return PutNewCommunicators(w); },
     .begin_trace = BeginCommunicatorsTrace,
     .may_allocate = false,
     .signal_safe = false},
    // A hook's change (NVTX attached, the plugin loaded) before the records
    // that hook brought, drained below.
    {.name = "injection status",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return PutInjectionStatus(w); },
     .may_allocate = false,
     .signal_safe = false},
    // On the writer's ticks (read at most once a second), and once more as
    // the trace ends.
    {.name = "process title",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool final) {
           TitleWatch* watch = GlobalTitleWatch();
           return !watch || watch->PutChanges(w, NowNs(), final);
         },
     .may_allocate = true,
     .signal_safe = false},
    {.name = "loaded libraries",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool final) {
           LoadedLibraryWatch* watch = GlobalLoadedLibraryWatch();
           return !watch || watch->PutNew(w, NowNs(), final);
         },
     .may_allocate = true,
     .signal_safe = false},
    // Each thread's records, after its ThreadDescriptor. A call's
    // fingerprints wait for it here (NoteFingerprints) to follow its
    // NcclEvent.
    {.name = "NCCL calls",
     .pass = DrainPass::kEachThread,
     .drain_thread = [](TraceWriter& w,
                        ThreadBuffer& b) { return DrainNcclCalls(w, b, NoteFingerprints); },
     .may_allocate = true,
     .signal_safe = false},
    {.name = "NVTX ranges",
     .pass = DrainPass::kEachThread,
     .drain_thread = WriteNvtxBatches,
     .may_allocate = true,
     .signal_safe = false},
    // Start/end ranges lost from the open-range table. A count for the
    // Footer, no packet: its place changes no byte of the trace.
    {.name = "lost NVTX ranges",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool) {
           CountLostOpenRanges(w);
           return true;
         },
     .may_allocate = false,
     .signal_safe = true},
    // Every writer tick, so the plugin's per-communicator pools stay small.
    {.name = "NCCL profiler plugin events",
     .pass = DrainPass::kEachTick,
     .drain = [](TraceWriter& w, bool) { return DrainNcclPlugin(w); },
     .may_allocate = true,
     .signal_safe = false},
    // After the calls: a call's fingerprints follow its NcclEvent.
    {.name = "collective fingerprints",
     .pass = DrainPass::kEachTick,
     .drain = DrainFingerprints,
     .may_allocate = true,
     .signal_safe = false},
    // Records (calls and ranges) of threads that never got a buffer, counted
    // with the calls as they always were. A count, no packet, like the above.
    {.name = "records lost without a buffer",
     .pass = DrainPass::kEachTick,
     .drain =
         [](TraceWriter& w, bool) {
           w.Count(kNcclCallCount, 0, GlobalThreadBuffers().TakeLostWithoutBuffer());
           return true;
         },
     .may_allocate = false,
     .signal_safe = true},
    // flush() only: CUPTI hands its buffers over when RequestGpuFlush()
    // asked for them, which the writer thread does before each flush.
    {.name = "GPU activity",
     .pass = DrainPass::kEachFlush,
     .drain = [](TraceWriter& w, bool) { return DrainGpuActivity(w); },
     .may_allocate = true,
     .signal_safe = false},
    // After the activity, which names the GPUs used.
    {.name = "device memory samples",
     .pass = DrainPass::kEachFlush,
     .drain =
         [](TraceWriter& w, bool final) {
           return GlobalDeviceMemorySampler().PutSamples(
               w, NowNs(), uint64_t{w.settings().flush_interval_ms} * 1000000, final);
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

const CaptureSources& RegisteredSources() { return kSources; }

}  // namespace vprof
