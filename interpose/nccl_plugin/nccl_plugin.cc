// The plugin's callbacks and the structs NCCL looks up (nccl_plugin.h).
#include "interpose/nccl_plugin/nccl_plugin.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "common/utf8_repair.h"
#include "interpose/core/clock.h"
#include "interpose/core/injection_status.h"
#include "interpose/core/log.h"
#include "interpose/core/runtime.h"
#include "interpose/nccl_plugin/nccl_plugin_pool.h"

namespace vprof {
namespace {

namespace abi = nccl_abi;

// The settings ConfigureNcclPlugin saw; 0 (nothing enabled) before.
constexpr uint32_t kPluginOn = 1, kKernelChOn = 2, kProxyOn = 4;
std::atomic<uint32_t> g_flags{0};
std::atomic<uint64_t> g_next_context_id{0};
// ProxyOp events carry the pid of the process that made their parent: NCCL's
// proxy can work for another process, whose handles are not ours.
std::atomic<pid_t> g_pid{0};
// The interface version NCCL last called init with, as told to injection_status.
std::atomic<uint32_t> g_noted_version{0};

uint32_t ActivationMask(uint32_t flags, uint32_t version) {
  if (!(flags & kPluginOn)) return 0;
  uint64_t mask = abi::kGroup | abi::kColl | abi::kP2p;
  if (version >= 5) mask |= abi::kGroupApi | abi::kCollApi | abi::kP2pApi | abi::kKernelLaunch;
  // Off by default: per-channel GPU timing costs up to ~10% on small messages.
  if (flags & kKernelChOn) mask |= abi::kKernelCh;
  if (flags & kProxyOn) mask |= abi::kProxyOp;
  return static_cast<uint32_t>(mask);
}

ncclResult_t Init(uint32_t version, void** context, int* mask, const char* comm_name,
                  uint64_t comm_hash, int nnodes, int nranks, int rank) noexcept {
  if (context) *context = nullptr;
  try {
    // vprof is initialised: NCCL loaded this library, whose constructor did it
    // (interpose/nccl_wrappers.cc), before it could call here.
    // Once per version: every communicator's init would otherwise rewrite the status.
    if (g_noted_version.exchange(version) != version) {
      NoteHookAttached(InjectionHook::kNcclProfiler, version);
    }
    const uint32_t m = RuntimeTracking() ? ActivationMask(g_flags.load(), version) : 0;
    // One int inside NCCL serves every communicator, so every init writes
    // the same value (0 once vprof is off).
    if (mask) *mask = static_cast<int>(m);
    if (m == 0 || !context) return ncclSuccess;
    PluginContext* c = OpenContext();
    if (!c) {
      VPROF_WARN_ONCE("more than {} NCCL communicators at once: no plugin events for the others",
                      kNcclPluginMaxContexts);
      return ncclSuccess;
    }
    c->id = g_next_context_id.fetch_add(1, std::memory_order_relaxed) + 1;
    c->comm_hash = comm_hash;
    if (comm_name) Utf8CopyCut(comm_name, c->name, sizeof c->name);
    c->nnodes = static_cast<uint32_t>(nnodes);
    c->nranks = static_cast<uint32_t>(nranks);
    c->rank = static_cast<uint32_t>(rank);
    c->activation_mask = m;
    c->init_ns = NowNs();
    PublishContext(*c);
    *context = c;
  } catch (...) {
    // Logging failed: this communicator goes without events, NCCL carries on.
  }
  return ncclSuccess;
}

ncclResult_t InitV4(void** context, int* mask, const char* comm_name, uint64_t comm_hash,
                    int nnodes, int nranks, int rank, abi::DebugLogger) noexcept {
  return Init(4, context, mask, comm_name, comm_hash, nnodes, nranks, rank);
}

template <uint32_t kVersion>
ncclResult_t InitV5(void** context, uint64_t comm_hash, int* mask, const char* comm_name,
                    int nnodes, int nranks, int rank, abi::DebugLogger) noexcept {
  return Init(kVersion, context, mask, comm_name, comm_hash, nnodes, nranks, rank);
}

template <typename Coll>
void TakeColl(PluginEvent& e, const Coll& p) {
  e.seq = p.seq_number;
  e.func = p.func;
  e.count = p.count;
  e.root = p.root;
  e.datatype = p.datatype;
  e.channels = p.n_channels;
  e.warps = p.n_warps;
  e.algo = p.algo;
  e.proto = p.proto;
}

template <typename P2p>
void TakeP2p(PluginEvent& e, const P2p& p) {
  e.func = p.func;
  e.datatype = p.datatype;
  e.count = p.count;
  e.peer = p.peer;
  e.channels = p.n_channels;
}

// The payload fields of the types every version shares (a Group has none).
template <typename Descr>
void TakeCommon(PluginEvent& e, const Descr& d) {
  switch (e.type) {
    case abi::kColl:
      TakeColl(e, d.coll);
      break;
    case abi::kP2p:
      TakeP2p(e, d.p2p);
      break;
    case abi::kProxyOp:
      e.channel_id = d.proxy_op.channel_id;
      e.peer = d.proxy_op.peer;
      break;
    case abi::kKernelCh:
      e.channel_id = d.kernel_ch.channel_id;
      e.gpu_start = d.kernel_ch.timer;
      break;
    default:
      break;
  }
}

void Take(PluginEvent& e, const abi::EventDescrV4& d) { TakeCommon(e, d); }

// v5 and v6 descriptors differ only in copy-engine events vprof ignores.
template <typename Descr>
void Take(PluginEvent& e, const Descr& d) {
  switch (e.type) {
    case abi::kGroupApi:
      e.graph_captured = d.group_api.graph_captured;
      e.group_depth = d.group_api.group_depth;
      break;
    case abi::kCollApi:
      e.func = d.coll_api.func;
      e.count = d.coll_api.count;
      e.datatype = d.coll_api.datatype;
      e.root = d.coll_api.root;
      e.stream = reinterpret_cast<uintptr_t>(d.coll_api.stream);
      e.graph_captured = d.coll_api.graph_captured;
      break;
    case abi::kP2pApi:
      e.func = d.p2p_api.func;
      e.count = d.p2p_api.count;
      e.datatype = d.p2p_api.datatype;
      e.stream = reinterpret_cast<uintptr_t>(d.p2p_api.stream);
      e.graph_captured = d.p2p_api.graph_captured;
      break;
    case abi::kKernelLaunch:
      e.stream = reinterpret_cast<uintptr_t>(d.kernel_launch.stream);
      break;
    default:
      TakeCommon(e, d);
  }
}

bool RecordedType(uint64_t type) {
  constexpr uint64_t kRecorded = abi::kGroup | abi::kColl | abi::kP2p | abi::kProxyOp |
                                 abi::kKernelCh | abi::kGroupApi | abi::kCollApi | abi::kP2pApi |
                                 abi::kKernelLaunch;
  // Exactly one bit, and one vprof records.
  return type != 0 && (type & (type - 1)) == 0 && (type & kRecorded) != 0;
}

// Hot path: see nccl_plugin_pool.h.
template <typename Descr>
ncclResult_t StartEvent(void* context, void** handle, Descr* d) noexcept {
  if (!handle) return ncclSuccess;
  *handle = nullptr;  // NCCL skips stop and state calls for a null handle
  if (!context || !d || !RuntimeRecording() || !RecordedType(d->type)) return ncclSuccess;
  PluginContext& c = *static_cast<PluginContext*>(context);
  PluginEvent* e = ClaimEvent(c, d->type);
  if (!e) return ncclSuccess;
  Take(*e, *d);
  const bool foreign_parent =
      e->type == abi::kProxyOp && d->proxy_op.pid != g_pid.load(std::memory_order_relaxed);
  if (!foreign_parent) e->parent_id = EventIdOf(c, d->parent_obj);
  *handle = e;
  return ncclSuccess;
}

ncclResult_t StopEvent(void* handle) noexcept {
  if (!handle) return ncclSuccess;
  auto* e = static_cast<PluginEvent*>(handle);
  if (e->state.load(std::memory_order_relaxed) != SlotState::kActive) return ncclSuccess;
  e->stop_ns = NowNs();
  e->state.store(SlotState::kDone, std::memory_order_release);  // the writer may take it now
  return ncclSuccess;
}

ncclResult_t RecordEventState(void* handle, abi::EventState state, abi::StateArgs* args) noexcept {
  if (!handle) return ncclSuccess;
  auto* e = static_cast<PluginEvent*>(handle);
  if (e->state.load(std::memory_order_relaxed) != SlotState::kActive) return ncclSuccess;
  // Group API states (API part over, ncclGroupEnd begun) have no field in the
  // schema; proxy states are not recorded.
  if (e->type == abi::kKernelCh && state == abi::kKernelChStop && args) {
    e->gpu_stop = args->kernel_ch.timer;
  }
  return ncclSuccess;
}

ncclResult_t Finalize(void* context) noexcept {
  // NCCL makes no call for this context after this one.
  if (context) {
    static_cast<PluginContext*>(context)->finalize_ns.store(NowNs(), std::memory_order_release);
  }
  return ncclSuccess;
}

}  // namespace

void ConfigureNcclPlugin(const Settings& s, const std::string& self_path) {
  g_pid.store(getpid(), std::memory_order_relaxed);
  g_flags.store((s.nccl_plugin ? kPluginOn : 0) | (s.nccl_kernel_ch ? kKernelChOn : 0) |
                (s.nccl_proxy ? kProxyOn : 0));
  constexpr auto kHook = InjectionHook::kNcclProfiler;
  if (!s.nccl_plugin) {
    const char* found = getenv("NCCL_PROFILER_PLUGIN");
    NoteHookClaim(kHook, found && found != self_path ? found : "", false);
    NoteHookNotAttached(kHook, "VPROF_NCCL_PLUGIN=0");
    return;
  }
  const std::string other =
      ClaimVariable("NCCL_PROFILER_PLUGIN", self_path.empty() ? nullptr : self_path.c_str());
  NoteHookClaim(kHook, other, other.empty() && !self_path.empty());
  if (!other.empty()) {
    NoteHookNotAttached(kHook, "NCCL_PROFILER_PLUGIN names another library");
    LogWarn("NCCL_PROFILER_PLUGIN={} belongs to another tool: no NCCL profiler-plugin events",
            other);
    return;
  }
  NoteHookNotAttached(kHook,
                      "NCCL has not called the plugin: no communicator created yet, or an NCCL "
                      "older than 2.27");
}

void ResetNcclPluginInChild() {
  g_pid.store(getpid(), std::memory_order_relaxed);
  ResetContextsInChild();
}

}  // namespace vprof

// What NCCL finds by dlsym. Not const: NCCL's own plugins export them
// writable, and nothing promises NCCL never writes through the pointer.
extern "C" {
__attribute__((visibility("default"))) vprof::nccl_abi::PluginV4 ncclProfiler_v4 = {
    .name = "vprof",
    .init = vprof::InitV4,
    .start_event = vprof::StartEvent<vprof::nccl_abi::EventDescrV4>,
    .stop_event = vprof::StopEvent,
    .record_event_state = vprof::RecordEventState,
    .finalize = vprof::Finalize,
};
__attribute__((visibility("default"))) vprof::nccl_abi::PluginV5 ncclProfiler_v5 = {
    .name = "vprof",
    .init = vprof::InitV5<5>,
    .start_event = vprof::StartEvent<vprof::nccl_abi::EventDescrV5>,
    .stop_event = vprof::StopEvent,
    .record_event_state = vprof::RecordEventState,
    .finalize = vprof::Finalize,
};
__attribute__((visibility("default"))) vprof::nccl_abi::PluginV6 ncclProfiler_v6 = {
    .name = "vprof",
    .init = vprof::InitV5<6>,
    .start_event = vprof::StartEvent<vprof::nccl_abi::EventDescrV6>,
    .stop_event = vprof::StopEvent,
    .record_event_state = vprof::RecordEventState,
    .finalize = vprof::Finalize,
};
}
