#include "interpose/nccl_plugin/nccl_plugin_pool.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#include "interpose/core/clock.h"

namespace vprof {

namespace detail {
// Constant-initialised (zero: kEmpty, no context), so usable before any
// static constructor and never destroyed.
ContextEntry g_contexts[kNcclPluginMaxContexts];
std::atomic<size_t> g_context_count{0};
}  // namespace detail

namespace {

using detail::EntryState;
using detail::g_context_count;
using detail::g_contexts;

constexpr uint64_t kSlotMask = kNcclPluginPoolEvents - 1;
static_assert((kNcclPluginPoolEvents & kSlotMask) == 0, "a power of two");

// gettid() is a system call: once per thread, then cached.
thread_local uint32_t t_tid = 0;
uint32_t CurrentTid() {
  if (t_tid == 0) t_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return t_tid;
}

const PluginEvent* SlotAt(const PluginContext& c, const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  const auto first = reinterpret_cast<uintptr_t>(c.pool);
  if (at < first || at >= first + kNcclPluginPoolEvents * sizeof(PluginEvent)) return nullptr;
  if ((at - first) % sizeof(PluginEvent) != 0) return nullptr;
  return static_cast<const PluginEvent*>(p);
}

// A context object and pool for a table entry never used before.
PluginContext* CreateContext(uint32_t entry) {
  // calloc: the pool is zero pages until used (a zero slot is a free one),
  // so a communicator that sees few events costs little memory.
  void* pool = std::calloc(kNcclPluginPoolEvents, sizeof(PluginEvent));
  if (!pool) return nullptr;
  auto* c = new (std::nothrow) PluginContext(static_cast<PluginEvent*>(pool));
  if (!c) {
    std::free(pool);
    return nullptr;
  }
  c->entry = entry;
  return c;
}

}  // namespace

PluginEvent* ClaimEvent(PluginContext& c, uint64_t type) {
  const uint64_t ordinal = c.next.fetch_add(1, std::memory_order_relaxed);
  PluginEvent& e = c.pool[ordinal & kSlotMask];
  SlotState expected = SlotState::kFree;
  if (!e.state.compare_exchange_strong(expected, SlotState::kActive, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
    c.dropped.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  e.type = type;
  e.tid = CurrentTid();
  e.event_id.store(PluginEventId(c.id, ordinal), std::memory_order_relaxed);
  e.parent_id = 0;
  e.start_ns = NowNs();
  e.stop_ns = 0;
  e.func = e.datatype = e.algo = e.proto = nullptr;
  e.seq = e.count = e.stream = e.gpu_start = e.gpu_stop = 0;
  e.root = e.peer = e.group_depth = 0;
  e.channels = e.warps = e.channel_id = 0;
  e.graph_captured = false;
  return &e;
}

uint64_t EventIdOf(const PluginContext& own, const void* handle) {
  if (!handle) return 0;
  if (const PluginEvent* e = SlotAt(own, handle)) {
    return e->event_id.load(std::memory_order_relaxed);
  }
  const size_t n = g_context_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n && i < kNcclPluginMaxContexts; ++i) {
    const PluginContext* c = g_contexts[i].context.load(std::memory_order_acquire);
    if (!c || c == &own) continue;
    if (const PluginEvent* e = SlotAt(*c, handle)) {
      return e->event_id.load(std::memory_order_relaxed);
    }
  }
  return 0;
}

PluginContext* OpenContext() {
  size_t n = g_context_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n && i < kNcclPluginMaxContexts; ++i) {
    EntryState retired = EntryState::kRetired;
    if (!g_contexts[i].state.compare_exchange_strong(retired, EntryState::kOpening)) continue;
    // The writer left every slot free when it retired the context.
    PluginContext* c = g_contexts[i].context.load(std::memory_order_relaxed);
    c->name[0] = '\0';
    c->finalize_ns.store(0, std::memory_order_relaxed);
    c->next.store(0, std::memory_order_relaxed);
    c->dropped.store(0, std::memory_order_relaxed);
    c->first_own_slot = 0;
    c->inherited = false;
    c->described = false;
    return c;
  }
  while (n < kNcclPluginMaxContexts &&
         !g_context_count.compare_exchange_weak(n, n + 1, std::memory_order_acq_rel)) {
  }
  if (n >= kNcclPluginMaxContexts) return nullptr;
  g_contexts[n].state.store(EntryState::kOpening, std::memory_order_relaxed);
  PluginContext* c = CreateContext(static_cast<uint32_t>(n));
  // A failed entry stays kOpening: never drained, never reused.
  if (c) g_contexts[n].context.store(c, std::memory_order_release);
  return c;
}

void PublishContext(PluginContext& c) {
  g_contexts[c.entry].state.store(EntryState::kOpen, std::memory_order_release);
}

void RetireContext(PluginContext& c) {
  g_contexts[c.entry].state.store(EntryState::kRetired, std::memory_order_release);
}

void ResetContextsInChild() {
  t_tid = 0;  // this thread (the one that forked) has a new id
  const size_t n = g_context_count.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n && i < kNcclPluginMaxContexts; ++i) {
    PluginContext* c = g_contexts[i].context.load(std::memory_order_relaxed);
    if (!c) continue;
    c->first_own_slot = c->next.load(std::memory_order_relaxed);
    c->dropped.store(0, std::memory_order_relaxed);
    c->inherited = true;
    c->described = false;
  }
}

}  // namespace vprof
