#include "interpose/nccl/comm_registry.h"

#include <cstring>

#include "interpose/core/load_order.h"

namespace vprof {
namespace {

uint64_t Mix64(uint64_t x) {
  // splitmix64's finaliser: a cheap, well-distributed 64-bit mix.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace

size_t CommRegistry::SlotOf(const void* comm) {
  return Mix64(reinterpret_cast<uintptr_t>(comm)) & (kSlots - 1);
}

CommInfo* CommRegistry::find(const void* comm) const {
  if (!comm) return nullptr;
  size_t s = SlotOf(comm);
  for (size_t probe = 0; probe < kSlots; ++probe, s = (s + 1) & (kSlots - 1)) {
    const void* k = keys_[s].load(std::memory_order_acquire);
    if (!k) return nullptr;
    if (k == comm) {
      CommInfo* v = values_[s].load(std::memory_order_acquire);
      // A slot being taken over by another communicator may pair the old key
      // with the new value for an instant; the value names its own key.
      return (v && v->comm == comm) ? v : nullptr;
    }
  }
  return nullptr;
}

bool CommRegistry::insert(CommInfo* info) {
  std::lock_guard<std::mutex> lock(*insert_lock_);
  size_t s = SlotOf(info->comm);
  size_t reusable = kSlots;
  for (size_t probe = 0; probe < kSlots; ++probe, s = (s + 1) & (kSlots - 1)) {
    const void* k = keys_[s].load(std::memory_order_relaxed);
    if (k == info->comm) {
      reusable = s;
      break;
    }
    if (!k) {
      if (reusable == kSlots) reusable = s;
      break;
    }
    CommInfo* v = values_[s].load(std::memory_order_relaxed);
    if (reusable == kSlots && v && v->destroyed.load(std::memory_order_relaxed)) reusable = s;
  }
  if (reusable == kSlots) return false;
  // Value first, then key: a reader that sees the key sees a complete value.
  values_[reusable].store(info, std::memory_order_release);
  keys_[reusable].store(info->comm, std::memory_order_release);
  size_t n = log_count_.load(std::memory_order_relaxed);
  if (n < kSlots * 4) {
    log_[n].store(info, std::memory_order_release);
    log_count_.store(n + 1, std::memory_order_release);
  }
  return true;
}

void CommRegistry::ResetInChild() {
  // The child keeps its parent's communicators (NCCL forbids using them, but
  // the lookup must still not crash); only the lock is renewed.
  insert_lock_ = new std::mutex;
}

namespace {
// Made while the library loads, before any thread exists: a function-local
// static's guard could be held by another thread at fork() and block the
// child forever. Never destroyed.
LoadFirst<CommRegistry> g_registry VPROF_LOAD_FIRST;
}  // namespace

CommRegistry& GlobalCommRegistry() { return *g_registry; }

uint64_t CommIdFromBytes(const void* data, size_t n) {
  // FNV-1a over the bytes, then mixed; 0 is reserved for "no communicator".
  uint64_t h = 0xcbf29ce484222325ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  h = Mix64(h);
  return h ? h : 1;
}

uint64_t CommIdDerived(uint64_t parent_id, uint64_t kind, uint64_t ordinal, int64_t color) {
  uint64_t parts[4] = {parent_id, kind, ordinal, static_cast<uint64_t>(color)};
  return CommIdFromBytes(parts, sizeof parts);
}

}  // namespace vprof
