// Per-thread record buffers and the registry the writer thread drains.
//
// A thread gets its buffer on its first record (one allocation per thread,
// under the registry lock) and gives it back when it exits; the writer drains
// a retired buffer and then frees it for reuse. Buffers are never deallocated,
// so no thread can ever touch freed memory, at exit or otherwise.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "capture/core/nccl_record.h"
#include "capture/core/nvtx_record.h"
#include "capture/core/nvtx_stack.h"
#include "capture/core/spsc_ring.h"

namespace vprof {

struct ThreadBuffer {
  enum State : uint32_t { kFree, kActive, kRetired };

  ThreadBuffer(size_t nccl_records, size_t nvtx_records) : nccl(nccl_records), nvtx(nvtx_records) {}

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
  static constexpr size_t kMaxBuffers = 4096;

  // Sets the ring sizes for buffers made from now on.
  void Configure(size_t nccl_records, size_t nvtx_records) {
    nccl_records_ = nccl_records;
    nvtx_records_ = nvtx_records;
  }

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
      }
    }
  }

  uint64_t TakeLostWithoutBuffer() {
    return lost_without_buffer_.exchange(0, std::memory_order_relaxed);
  }
  void CountLostWithoutBuffer() { lost_without_buffer_.fetch_add(1, std::memory_order_relaxed); }

  // In a forked child: the parent's records are the parent's to write, and
  // every thread but the caller is gone. Takes no lock (see lifecycle.cc).
  void ResetInChild();

 private:
  ThreadBuffer* Acquire();

  std::atomic<ThreadBuffer*> slots_[kMaxBuffers] = {};
  std::atomic<size_t> count_{0};
  std::atomic<uint64_t> lost_without_buffer_{0};
  size_t nccl_records_ = 4096;
  size_t nvtx_records_ = 1024;
};

ThreadBuffers& GlobalThreadBuffers();

}  // namespace vprof
