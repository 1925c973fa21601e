// The capture sources' table: the one place that names every source, for the
// writer's drains and for the runtime's start, ticks and fork
// (core/runtime.cc). Each row says why it is where it is; the drains' order is
// the order of the packets in the trace, which the reporter reads in that
// order.
#include "interpose/sources.h"

#include "common/settings.h"
#include "cupti/deep_windows.h"
#include "cupti/device_memory_sampler.h"
#include "cupti/gpu_capture.h"
#include "interpose/audit/collective_audit.h"
#include "interpose/audit/fingerprint_drain.h"
#include "interpose/core/clock.h"
#include "interpose/core/injection_status.h"
#include "interpose/core/loaded_libraries.h"
#include "interpose/core/log.h"
#include "interpose/core/process_title.h"
#include "interpose/core/thread_buffers.h"
#include "interpose/core/trace_writer.h"
#include "interpose/nccl/comm_registry.h"
#include "interpose/nccl/nccl_calls.h"
#include "interpose/nccl/nccl_drain.h"
#include "interpose/nccl_plugin/nccl_plugin.h"
#include "interpose/nvtx/nvtx_batch_writer.h"
#include "interpose/nvtx/nvtx_open_ranges.h"

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
    // Flush() only: CUPTI hands its buffers over when RequestGpuFlush()
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
                                          &kNcclPluginCount, &kGraphNodesCount};
static_assert(std::size(kCounts) <= TraceWriter::kMaxCounts);

// Makes the CUDA driver call InitializeInjection at cuInit and every NVTX
// module call InitializeInjectionNvtx2, in this process and in children that
// inherit the environment (even when a launcher replaces LD_PRELOAD), unless
// another tool owns a hook already. Runs before main, before any thread of
// the program reads the environment.
void ClaimInjectionHooks(const SourceStart& start) {
  const char* path = start.self_path.empty() ? nullptr : start.self_path.c_str();
  if (!start.settings.gpu_capture) {
    NoteGpuCaptureUnavailable("VPROF_GPU=0");
  } else if (std::string other = ClaimVariable("CUDA_INJECTION64_PATH", path); !other.empty()) {
    NoteCudaInjection(other.c_str());
    NoteGpuCaptureUnavailable("CUDA_INJECTION64_PATH names another tool");
    LogWarn("CUDA_INJECTION64_PATH={} belongs to another tool: no GPU capture", other);
  }
  std::string other_nvtx = ClaimVariable("NVTX_INJECTION64_PATH", path);
  NoteHookClaim(InjectionHook::kNvtx, other_nvtx, other_nvtx.empty() && path);
  if (!other_nvtx.empty()) {
    LogWarn("NVTX_INJECTION64_PATH={} belongs to another tool: no NVTX capture", other_nvtx);
  }
}

// In this order a forked child is reset; within each stage, in this order
// recording starts.
constexpr SourceHooks kHooks[] = {
    // Started when the CUDA driver calls InitializeInjection, so that CUPTI
    // loads only in processes that initialise CUDA. CUPTI hands its buffers
    // over when asked: before each flush, and more often while device memory
    // is to be sampled from a device not yet seen.
    {.name = "GPU activity",
     .stage = StartStage::kAtCudaInit,
     .start =
         [](const SourceStart& s) {
           if (GpuCaptureWanted()) StartGpuCapture(s.settings.gpu_kinds, s.settings.deep);
         },
     .before_flush =
         [](bool final) {
           RequestGpuFlush(final || GlobalDeviceMemorySampler().WaitingForDevice());
         },
     .after_capture_window = StopGpuRecording,
     .reset_in_child = ResetGpuCaptureInChild},
    {.name = "collective fingerprints",
     .stage = StartStage::kAfterWriter,
     .start = [](const SourceStart& s) { ConfigureCollectiveAudit(s.settings); },
     .reset_in_child = ResetFingerprintsInChild},
    // Before the writer, which alone reads the schedule after; opened and
    // closed on its ticks.
    {.name = "deep windows",
     .start =
         [](const SourceStart& s) {
           ConfigureDeepWindows(s.settings.deep, s.settings.output_dir,
                                uint64_t{s.settings.flush_interval_ms} * 1000000ull);
         },
     .on_tick = [](uint64_t now_ns) { UpdateDeepWindows(now_ns, RealtimeNs()); },
     .reset_in_child = ResetDeepWindowsInChild},
    // After the writer: CUDA and NVTX may call in at once.
    {.name = "injection hooks", .stage = StartStage::kAfterWriter, .start = ClaimInjectionHooks},
    {.name = "NCCL profiler plugin",
     .stage = StartStage::kAfterWriter,
     .start = [](const SourceStart& s) { ConfigureNcclPlugin(s.settings, s.self_path); },
     .reset_in_child = ResetNcclPluginInChild},
    {.name = "NVTX open ranges",
     .reset_in_child =
         [] {
           if (NvtxOpenRanges* open = GlobalNvtxOpenRanges()) open->ResetInChild();
         }},
    // The title as the RunHeader's argv holds it: no program code has run
    // since the run's facts were collected.
    {.name = "process title",
     .start = [](const SourceStart&) { ConfigureTitleWatch(); },
     .reset_in_child =
         [] {
           if (TitleWatch* watch = GlobalTitleWatch()) watch->ResetInChild();
         }},
    {.name = "loaded libraries",
     .start = [](const SourceStart&) { ConfigureLoadedLibraryWatch(); },
     .reset_in_child =
         [] {
           if (LoadedLibraryWatch* watch = GlobalLoadedLibraryWatch()) watch->ResetInChild();
         }},
    {.name = "injection status", .reset_in_child = RewriteInjectionStatusInChild},
    {.name = "communicators",
     .reset_in_child =
         [] {
           GlobalCommRegistry().ResetInChild();
           RenewCommAdoptionInChild();
         }},
};

constexpr CaptureSources kSources{kDrains, kCounts, kHooks};

}  // namespace

const CaptureSources& RegisteredSources() { return kSources; }

}  // namespace vprof
