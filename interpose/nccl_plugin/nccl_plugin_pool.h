// Storage for NCCL profiler-plugin events: one context per communicator, each
// with a fixed pool of event slots that NCCL's threads fill and the writer
// thread empties.
//
// Hot path (startEvent/stopEvent/recordEventState, on NCCL's threads): one
// atomic counter picks a slot, one compare-and-swap claims it; no lock, no
// allocation, no system call. A slot still in use when the counter comes
// round to it again means the pool is full: the event is dropped and counted.
//
// Lifetime: contexts and their pools are never freed. A finalized context is
// written out by the writer thread and then handed to the next init, so
// communicator churn reuses memory, and a stale handle (a parent pointer
// NCCL still holds) always points at readable memory.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace vprof {

// Slots per context: at the default 250 ms flush, 64k events a second per
// communicator before drops. A pool is zeroed memory touched only as it is
// used, so a quiet communicator costs little.
inline constexpr size_t kNcclPluginPoolEvents = 16384;  // power of two
// Communicators with a live plugin context at once.
inline constexpr size_t kNcclPluginMaxContexts = 512;

enum class SlotState : uint32_t { kFree = 0, kActive = 1, kDone = 2 };

// One event. NCCL's opaque handle points at it; `type` comes first so that a
// handle can be switched on without knowing anything else.
struct PluginEvent {
  uint64_t type;  // NCCL's event type bit (nccl_profiler_abi.h)
  std::atomic<SlotState> state;
  uint32_t tid;
  // Atomic: other threads read it when this event is named as a parent.
  std::atomic<uint64_t> event_id;
  uint64_t parent_id;
  uint64_t start_ns, stop_ns;
  const char* func;  // NCCL's static strings, interned by the writer
  const char* datatype;
  const char* algo;
  const char* proto;
  uint64_t seq, count, stream;
  uint64_t gpu_start, gpu_stop;
  int32_t root, peer, group_depth;
  uint8_t channels, warps, channel_id;
  bool graph_captured;
};

struct PluginContext {
  // Set by init before the context is handed to NCCL; read-only afterwards.
  uint64_t id = 0;
  uint64_t comm_hash = 0;
  char name[128] = {};  // commName, copied: NCCL's string dies with the communicator
  uint32_t nnodes = 0, nranks = 0, rank = 0;
  uint32_t activation_mask = 0;
  uint64_t init_ns = 0;
  std::atomic<uint64_t> finalize_ns{0};  // set by NCCL's finalize, then no more calls come
  // Never changes: parent lookups read it from any thread.
  PluginEvent* const pool;
  alignas(64) std::atomic<uint64_t> next{0};  // slots handed out so far
  alignas(64) std::atomic<uint64_t> dropped{0};
  // In a forked child: slots handed out before the fork hold the parent's
  // events, which the parent writes; the communicator is the parent's, so
  // the child's file describes it only if the child uses it.
  uint64_t first_own_slot = 0;
  bool inherited = false;
  bool described = false;  // writer thread only: NcclPluginComm written
  uint32_t entry = 0;      // its place in the table of contexts

  explicit PluginContext(PluginEvent* p) : pool(p) {}
};

// An event id unique in the trace: the context id above 40 bits, the slot
// ordinal (from 1) below. 2^24 contexts, 2^40 events each.
inline uint64_t PluginEventId(uint64_t context_id, uint64_t ordinal) {
  return (context_id << 40) | (ordinal + 1);
}
inline uint64_t PluginEventOrdinal(uint64_t event_id) {
  return (event_id & ((1ull << 40) - 1)) - 1;
}

// Claims a free slot of `c` for an event of `type` started now, or returns
// nullptr (counted in c.dropped) when the pool is full.
PluginEvent* ClaimEvent(PluginContext& c, uint64_t type);

// The event_id of the event `handle` points at, when it is a slot of one of
// the contexts (NCCL hands parents from another communicator's context when a
// group spans communicators); 0 otherwise. NCCL names parents that stopped
// long ago (a CollApi is the parent of the Coll started at ncclGroupEnd): a
// slot keeps its id after the writer frees it, until kNcclPluginPoolEvents
// later events of its context hand it out again.
uint64_t EventIdOf(const PluginContext& own, const void* handle);

// init: an empty context for the caller to fill, not yet seen by the writer;
// nullptr when kNcclPluginMaxContexts are open or memory is short.
PluginContext* OpenContext();
// init: the filled context, from now on drained by the writer.
void PublishContext(PluginContext& c);

// Writer thread: every context NCCL has opened and the writer not yet retired.
template <typename Fn>
void ForEachOpenContext(Fn&& fn);
// Writer thread: the context is written out; init may hand it out again.
void RetireContext(PluginContext& c);

// In a forked child: slots handed out so far belong to the parent, nothing
// is described in the child's file yet, and drops start from 0. Takes no lock.
void ResetContextsInChild();

namespace detail {
enum class EntryState : uint32_t { kEmpty = 0, kOpening = 1, kOpen = 2, kRetired = 3 };
struct ContextEntry {
  std::atomic<EntryState> state;
  std::atomic<PluginContext*> context;  // set once, never changed
};
extern ContextEntry g_contexts[kNcclPluginMaxContexts];
extern std::atomic<size_t> g_context_count;  // entries ever used
}  // namespace detail

template <typename Fn>
void ForEachOpenContext(Fn&& fn) {
  size_t n = detail::g_context_count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n && i < kNcclPluginMaxContexts; ++i) {
    detail::ContextEntry& e = detail::g_contexts[i];
    if (e.state.load(std::memory_order_acquire) == detail::EntryState::kOpen) {
      fn(*e.context.load(std::memory_order_relaxed));
    }
  }
}

}  // namespace vprof
