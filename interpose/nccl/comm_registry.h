// What vprof knows about each NCCL communicator this process holds.
//
// Wrappers look a communicator up on every collective, so lookup is lock-free:
// an open-addressing table keyed by the ncclComm_t pointer. Insertion (at
// communicator creation, rare) takes a lock. CommInfo objects are never freed:
// a stale pointer held by another thread stays valid; a destroyed
// communicator's slot is reused when the table needs room.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace vprof {

struct CommInfo {
  const void* comm = nullptr;  // the ncclComm_t
  uint64_t id = 0;             // identical on every member rank
  uint32_t nranks = 0;
  uint32_t rank = 0;
  uint64_t parent_id = 0;
  int32_t split_color = 0;
  uint16_t created_by = 0;  // NcclFn row
  uint64_t create_begin_ns = 0;
  uint64_t create_end_ns = 0;
  int32_t cuda_device = -1;
  uint32_t nccl_version = 0;  // ncclGetVersion's code; 0 when unknown
  // Collectives issued so far (the next one gets coll_seq + 1).
  std::atomic<uint64_t> coll_seq{0};
  // Point-to-point calls so far, per peer (nranks entries).
  std::unique_ptr<std::atomic<uint64_t>[]> p2p_seq;
  // Derived communicators made so far, per kind (split, shrink): ranks that
  // take part in every split agree on the count even if some skip a shrink.
  std::atomic<uint64_t> derived[2] = {};
  std::atomic<bool> destroyed{false};
};

class CommRegistry {
 public:
  static constexpr size_t kSlots = 8192;  // power of two

  // Lock-free; nullptr when the communicator was never registered.
  CommInfo* find(const void* comm) const;

  // Registers (or re-registers, when NCCL reuses an address) a communicator.
  // info must be heap-allocated; the registry keeps it forever. Returns false
  // when the table is full of live communicators.
  bool insert(CommInfo* info);

  // Writer side: communicators registered since *cursor, in order.
  template <typename Fn>
  void ForEachNew(size_t* cursor, Fn&& fn) {
    size_t n = log_count_.load(std::memory_order_acquire);
    for (; *cursor < n && *cursor < kSlots * 4; ++*cursor) {
      fn(*log_[*cursor].load(std::memory_order_acquire));
    }
  }

  // How many communicators were registered so far (the end of the log).
  size_t registered() const { return log_count_.load(std::memory_order_acquire); }

  void ResetInChild();

 private:
  static size_t SlotOf(const void* comm);

  std::atomic<const void*> keys_[kSlots] = {};
  std::atomic<CommInfo*> values_[kSlots] = {};
  // Creation order, for the writer (bounded: older entries beyond it are
  // still tracked, only not described in the trace again).
  std::atomic<CommInfo*> log_[kSlots * 4] = {};
  std::atomic<size_t> log_count_{0};
  std::mutex* insert_lock_ = new std::mutex;
};

CommRegistry& GlobalCommRegistry();

// Ids for communicators, equal on every member rank.
uint64_t CommIdFromBytes(const void* data, size_t n);
uint64_t CommIdDerived(uint64_t parent_id, uint64_t kind, uint64_t ordinal, int64_t color);

}  // namespace vprof
