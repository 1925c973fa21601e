// The plugin's callbacks and the structs NCCL looks up (nccl_plugin.h).
#include "nccl_plugin.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "clock.h"
#include "injection_status.h"
#include "log.h"
#include "nccl_plugin_pool.h"
#include "runtime.h"
#include "utf8_repair.h"

namespace vprof {
namespace {

namespace abi = nccl_abi;

// The settings configure_nccl_plugin saw; 0 (nothing enabled) before.
constexpr uint32_t kPluginOn = 1, kKernelChOn = 2, kProxyOn = 4;
std::atomic<uint32_t> g_flags{0};
std::atomic<uint64_t> g_next_context_id{0};
// ProxyOp events carry the pid of the process that made their parent: NCCL's
// proxy can work for another process, whose handles are not ours.
std::atomic<pid_t> g_pid{0};
// The interface version NCCL last called init with, as told to injection_status.
std::atomic<uint32_t> g_noted_version{0};

uint32_t activation_mask(uint32_t flags, uint32_t version) {
  if (!(flags & kPluginOn)) return 0;
  uint64_t mask = abi::kGroup | abi::kColl | abi::kP2p;
  if (version >= 5) mask |= abi::kGroupApi | abi::kCollApi | abi::kP2pApi | abi::kKernelLaunch;
  // Off by default: per-channel GPU timing costs up to ~10% on small messages.
  if (flags & kKernelChOn) mask |= abi::kKernelCh;
  if (flags & kProxyOn) mask |= abi::kProxyOp;
  return static_cast<uint32_t>(mask);
}

ncclResult_t init(uint32_t version, void** context, int* mask, const char* comm_name,
                  uint64_t comm_hash, int nnodes, int nranks, int rank) noexcept {
  if (context) *context = nullptr;
  try {
    ensure_initialized();
    // Once per version: every communicator's init would otherwise rewrite the status.
    if (g_noted_version.exchange(version) != version) {
      note_hook_attached(InjectionHook::kNcclProfiler, version);
    }
    const uint32_t m = runtime_tracking() ? activation_mask(g_flags.load(), version) : 0;
    // One int inside NCCL serves every communicator, so every init writes
    // the same value (0 once vprof is off).
    if (mask) *mask = static_cast<int>(m);
    if (m == 0 || !context) return ncclSuccess;
    PluginContext* c = open_context();
    if (!c) {
      VPROF_WARN_ONCE("more than {} NCCL communicators at once: no plugin events for the others",
                      kNcclPluginMaxContexts);
      return ncclSuccess;
    }
    c->id = g_next_context_id.fetch_add(1, std::memory_order_relaxed) + 1;
    c->comm_hash = comm_hash;
    if (comm_name) utf8_copy_cut(comm_name, c->name, sizeof c->name);
    c->nnodes = static_cast<uint32_t>(nnodes);
    c->nranks = static_cast<uint32_t>(nranks);
    c->rank = static_cast<uint32_t>(rank);
    c->activation_mask = m;
    c->init_ns = now_ns();
    publish_context(*c);
    *context = c;
  } catch (...) {
    // Logging failed: this communicator goes without events, NCCL carries on.
  }
  return ncclSuccess;
}

ncclResult_t init_v4(void** context, int* mask, const char* comm_name, uint64_t comm_hash,
                     int nnodes, int nranks, int rank, abi::DebugLogger) noexcept {
  return init(4, context, mask, comm_name, comm_hash, nnodes, nranks, rank);
}

template <uint32_t kVersion>
ncclResult_t init_v5(void** context, uint64_t comm_hash, int* mask, const char* comm_name,
                     int nnodes, int nranks, int rank, abi::DebugLogger) noexcept {
  return init(kVersion, context, mask, comm_name, comm_hash, nnodes, nranks, rank);
}

template <typename Coll>
void take_coll(PluginEvent& e, const Coll& p) {
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
void take_p2p(PluginEvent& e, const P2p& p) {
  e.func = p.func;
  e.datatype = p.datatype;
  e.count = p.count;
  e.peer = p.peer;
  e.channels = p.n_channels;
}

// The payload fields of the types every version shares (a Group has none).
template <typename Descr>
void take_common(PluginEvent& e, const Descr& d) {
  switch (e.type) {
    case abi::kColl:
      take_coll(e, d.coll);
      break;
    case abi::kP2p:
      take_p2p(e, d.p2p);
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

void take(PluginEvent& e, const abi::EventDescrV4& d) { take_common(e, d); }

// v5 and v6 descriptors differ only in copy-engine events vprof ignores.
template <typename Descr>
void take(PluginEvent& e, const Descr& d) {
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
      take_common(e, d);
  }
}

bool recorded_type(uint64_t type) {
  constexpr uint64_t kRecorded = abi::kGroup | abi::kColl | abi::kP2p | abi::kProxyOp |
                                 abi::kKernelCh | abi::kGroupApi | abi::kCollApi | abi::kP2pApi |
                                 abi::kKernelLaunch;
  // Exactly one bit, and one vprof records.
  return type != 0 && (type & (type - 1)) == 0 && (type & kRecorded) != 0;
}

// Hot path: see nccl_plugin_pool.h.
template <typename Descr>
ncclResult_t start_event(void* context, void** handle, Descr* d) noexcept {
  if (!handle) return ncclSuccess;
  *handle = nullptr;  // NCCL skips stop and state calls for a null handle
  if (!context || !d || !runtime_recording() || !recorded_type(d->type)) return ncclSuccess;
  PluginContext& c = *static_cast<PluginContext*>(context);
  PluginEvent* e = claim_event(c, d->type);
  if (!e) return ncclSuccess;
  take(*e, *d);
  const bool foreign_parent =
      e->type == abi::kProxyOp && d->proxy_op.pid != g_pid.load(std::memory_order_relaxed);
  if (!foreign_parent) e->parent_id = event_id_of(c, d->parent_obj);
  *handle = e;
  return ncclSuccess;
}

ncclResult_t stop_event(void* handle) noexcept {
  if (!handle) return ncclSuccess;
  auto* e = static_cast<PluginEvent*>(handle);
  if (e->state.load(std::memory_order_relaxed) != SlotState::kActive) return ncclSuccess;
  e->stop_ns = now_ns();
  e->state.store(SlotState::kDone, std::memory_order_release);  // the writer may take it now
  return ncclSuccess;
}

ncclResult_t record_event_state(void* handle, abi::EventState state,
                                abi::StateArgs* args) noexcept {
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

ncclResult_t finalize(void* context) noexcept {
  // NCCL makes no call for this context after this one.
  if (context) {
    static_cast<PluginContext*>(context)->finalize_ns.store(now_ns(), std::memory_order_release);
  }
  return ncclSuccess;
}

}  // namespace

void configure_nccl_plugin(const Settings& s, const std::string& self_path) {
  g_pid.store(getpid(), std::memory_order_relaxed);
  g_flags.store((s.nccl_plugin ? kPluginOn : 0) | (s.nccl_kernel_ch ? kKernelChOn : 0) |
                (s.nccl_proxy ? kProxyOn : 0));
  constexpr auto kHook = InjectionHook::kNcclProfiler;
  if (!s.nccl_plugin) {
    const char* found = getenv("NCCL_PROFILER_PLUGIN");
    note_hook_claim(kHook, found && found != self_path ? found : "", false);
    note_hook_not_attached(kHook, "VPROF_NCCL_PLUGIN=0");
    return;
  }
  const std::string other =
      claim_variable("NCCL_PROFILER_PLUGIN", self_path.empty() ? nullptr : self_path.c_str());
  note_hook_claim(kHook, other, other.empty() && !self_path.empty());
  if (!other.empty()) {
    note_hook_not_attached(kHook, "NCCL_PROFILER_PLUGIN names another library");
    log().warn("NCCL_PROFILER_PLUGIN={} belongs to another tool: no NCCL profiler-plugin events",
               other);
    return;
  }
  note_hook_not_attached(kHook,
                         "NCCL has not called the plugin: no communicator created yet, or an NCCL "
                         "older than 2.27");
}

void reset_nccl_plugin_in_child() {
  g_pid.store(getpid(), std::memory_order_relaxed);
  reset_contexts_in_child();
}

}  // namespace vprof

// What NCCL finds by dlsym. Not const: NCCL's own plugins export them
// writable, and nothing promises NCCL never writes through the pointer.
extern "C" {
__attribute__((visibility("default"))) vprof::nccl_abi::PluginV4 ncclProfiler_v4 = {
    .name = "vprof",
    .init = vprof::init_v4,
    .start_event = vprof::start_event<vprof::nccl_abi::EventDescrV4>,
    .stop_event = vprof::stop_event,
    .record_event_state = vprof::record_event_state,
    .finalize = vprof::finalize,
};
__attribute__((visibility("default"))) vprof::nccl_abi::PluginV5 ncclProfiler_v5 = {
    .name = "vprof",
    .init = vprof::init_v5<5>,
    .start_event = vprof::start_event<vprof::nccl_abi::EventDescrV5>,
    .stop_event = vprof::stop_event,
    .record_event_state = vprof::record_event_state,
    .finalize = vprof::finalize,
};
__attribute__((visibility("default"))) vprof::nccl_abi::PluginV6 ncclProfiler_v6 = {
    .name = "vprof",
    .init = vprof::init_v5<6>,
    .start_event = vprof::start_event<vprof::nccl_abi::EventDescrV6>,
    .stop_event = vprof::stop_event,
    .record_event_state = vprof::record_event_state,
    .finalize = vprof::finalize,
};
}
