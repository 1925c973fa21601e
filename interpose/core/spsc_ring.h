// A single-producer single-consumer ring of fixed-size records.
//
// The producer is the thread that owns the ring (an intercepted call); the
// consumer is the writer thread. No locks, no allocation, no system calls: a
// full ring drops the record and counts it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace vprof {

template <typename T>
class SpscRing {
  // Slots are zeroed memory the producer copies records into.
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // The slots a ring made for `records` has: rounded down to a power of two (at least 2).
  static size_t CapacityFor(size_t records) {
    size_t c = 2;
    while (c * 2 <= records) c *= 2;
    return c;
  }

  // `slots`: CapacityFor(records) zeroed slots that outlive the ring, which
  // does not own them (thread_buffers.h maps them, untouched until used).
  SpscRing(T* slots, size_t records) : slots_(slots), mask_(CapacityFor(records) - 1) {}

  size_t capacity() const { return mask_ + 1; }

  // Producer side. Returns false (and counts a drop) when the ring is full.
  bool Push(const T& v) {
    uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) > mask_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    slots_[head & mask_] = v;
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Consumer side: calls fn(const T&) for up to max records, oldest first;
  // returns how many were consumed.
  template <typename Fn>
  size_t Consume(size_t max, Fn&& fn) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    uint64_t head = head_.load(std::memory_order_acquire);
    size_t n = 0;
    while (tail != head && n < max) {
      fn(slots_[tail & mask_]);
      ++tail;
      ++n;
    }
    tail_.store(tail, std::memory_order_release);
    return n;
  }

  // Consumer side: discards everything (a forked child drops its parent's data).
  void Discard() { tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release); }

  bool empty() const {
    return tail_.load(std::memory_order_acquire) == head_.load(std::memory_order_acquire);
  }

  // Producer side: a record lost before it reached the ring.
  void CountDrop() { dropped_.fetch_add(1, std::memory_order_relaxed); }
  // Drops since the last call (consumer side).
  uint64_t TakeDropped() { return dropped_.exchange(0, std::memory_order_relaxed); }

 private:
  T* slots_;
  size_t mask_;
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace vprof
