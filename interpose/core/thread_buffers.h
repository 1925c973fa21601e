// Per-thread record buffers and the registry the writer thread drains.
//
// A thread gets its buffer on its first record (one mapping per buffer, under
// the registry lock) and gives it back when it exits; the writer drains a
// retired buffer and then frees it for reuse. Buffers are never unmapped, so
// no thread can ever touch freed memory, at exit or otherwise.
//
// All buffers together are bounded (kPoolBytes), whatever the thread count: a
// buffer's rings are VPROF_BUFFER_KB of each kind, 1.4 MiB a thread at the
// default, so 1,400 recording threads would otherwise take 2 GB, more than a
// process under `ulimit -v 2000000` has. A thread that finds the pool taken records nothing:
// its records are dropped and counted, and so is the thread; it asks again
// only once a buffer was freed, so a record costs it no lock meanwhile. Ring
// memory is mapped, not malloc'd: untouched until used, and no malloc arena
// made for a thread on vprof's behalf.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "interpose/core/nccl_record.h"
#include "interpose/core/nvtx_record.h"
#include "interpose/core/nvtx_stack.h"
#include "interpose/core/spsc_ring.h"

namespace vprof {

struct ThreadBuffer {
  enum State : uint32_t { kFree, kActive, kRetired };

  ThreadBuffer(NcclRecord* nccl_slots, size_t nccl_records, NvtxRecord* nvtx_slots,
               size_t nvtx_records)
      : nccl(nccl_slots, nccl_records), nvtx(nvtx_slots, nvtx_records) {}

  bool empty() const { return nccl.empty() && nvtx.empty(); }

  SpscRing<NcclRecord> nccl;
  SpscRing<NvtxRecord> nvtx;
  NvtxStack nvtx_stack;  // the owning thread's alone
  std::atomic<uint32_t> state{kActive};
  pid_t tid = 0;
  // The thread's name when it got the buffer: a short-lived thread may be
  // gone (and its /proc entry with it) by the time the writer looks.
  char name[16] = {};
  // Writer-side: the tid whose ThreadDescriptor has been written (0: none).
  pid_t described_tid = 0;
};

class ThreadBuffers {
 public:
  ThreadBuffers() { Configure(4096, 1024); }

  static constexpr size_t kMaxBuffers = 4096;
  // The address space every buffer together takes at most: 184 threads
  // recording at once at the default VPROF_BUFFER_KB, 11 at its largest.
  static constexpr size_t kPoolBytes = size_t{256} << 20;

  // Sets the ring sizes for buffers made from now on, and how many of them the
  // pool holds (at least one). Before any thread records: the buffers made
  // before keep their sizes.
  void Configure(size_t nccl_records, size_t nvtx_records);
  // The bytes of one buffer's mapping, rings included.
  size_t buffer_bytes() const { return buffer_bytes_; }
  size_t max_buffers() const { return max_buffers_; }

  // Hot path: the calling thread's buffer, or nullptr when none can be had
  // (the record is then counted by TakeLostWithoutBuffer()).
  ThreadBuffer* Current();

  // Writer side: visits every buffer that may hold records; frees retired
  // buffers once drained.
  template <typename Fn>
  void ForEach(Fn&& fn) {
    size_t n = count_.load(std::memory_order_acquire);
    for (size_t i = 0; i < n; ++i) {
      ThreadBuffer* b = slots_[i].load(std::memory_order_acquire);
      if (!b) continue;
      uint32_t st = b->state.load(std::memory_order_acquire);
      if (st == ThreadBuffer::kFree) continue;
      fn(*b);
      if (st == ThreadBuffer::kRetired && b->empty()) {
        b->state.store(ThreadBuffer::kFree, std::memory_order_release);
        freed_.fetch_add(1, std::memory_order_release);
      }
    }
  }

  uint64_t TakeLostWithoutBuffer() {
    return lost_without_buffer_.exchange(0, std::memory_order_relaxed);
  }
  void CountLostWithoutBuffer() { lost_without_buffer_.fetch_add(1, std::memory_order_relaxed); }
  // Threads that wanted a buffer and found the pool taken, since the trace began.
  uint64_t threads_without_buffer() const {
    return threads_without_buffer_.load(std::memory_order_relaxed);
  }

  // In a forked child: the parent's records are the parent's to write, and
  // every thread but the caller is gone. Takes no lock (see runtime.cc).
  void ResetInChild();

 private:
  ThreadBuffer* Acquire();
  // A new buffer in a mapping of its own; nullptr when none can be made.
  ThreadBuffer* Make() const;

  std::atomic<ThreadBuffer*> slots_[kMaxBuffers] = {};
  std::atomic<size_t> count_{0};
  std::atomic<uint64_t> lost_without_buffer_{0};
  std::atomic<uint64_t> threads_without_buffer_{0};
  // Buffers the writer freed so far: a thread the pool turned away asks again
  // when this moved.
  std::atomic<uint64_t> freed_{0};
  size_t nccl_records_ = 0;
  size_t nvtx_records_ = 0;
  size_t buffer_bytes_ = 0;
  size_t max_buffers_ = 0;
};

ThreadBuffers& GlobalThreadBuffers();

}  // namespace vprof
