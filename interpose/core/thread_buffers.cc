#include "interpose/core/thread_buffers.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>

#include "interpose/core/load_order.h"

namespace vprof {
namespace {

thread_local ThreadBuffer* t_buffer = nullptr;
// Set once the thread is exiting, so a record made by a later TLS destructor
// does not grab a new buffer that nobody would retire.
thread_local bool t_exiting = false;
// Set when the pool had no buffer for this thread: it asks again once the
// writer freed one since (t_freed_then).
thread_local bool t_turned_away = false;
thread_local uint64_t t_freed_then = 0;

// Guards Acquire(); never held while calling into anything else. A forked
// child gets a fresh one (ResetInChild) instead of the parent's copy, which
// another thread may have held at the fork.
LoadFirst<std::mutex> g_acquire_lock VPROF_LOAD_FIRST;

void OnThreadExit(void* p) {
  auto* b = static_cast<ThreadBuffer*>(p);
  t_exiting = true;
  t_buffer = nullptr;
  b->state.store(ThreadBuffer::kRetired, std::memory_order_release);
}

// Its destructor retires a thread's buffer. Made at load, before any thread.
pthread_key_t MakeExitKey() {
  pthread_key_t key;
  pthread_key_create(&key, OnThreadExit);
  return key;
}
LoadFirst<pthread_key_t> g_exit_key VPROF_LOAD_FIRST(MakeExitKey());

constexpr size_t RoundUp(size_t bytes, size_t unit) { return (bytes + unit - 1) / unit * unit; }

// Where a buffer's mapping puts its parts: the ThreadBuffer, then each ring's
// slots on a cache line of their own.
struct Layout {
  size_t nccl_at, nvtx_at, bytes;
};
Layout LayoutOf(size_t nccl_records, size_t nvtx_records) {
  Layout at;
  at.nccl_at = RoundUp(sizeof(ThreadBuffer), 64);
  at.nvtx_at = RoundUp(
      at.nccl_at + SpscRing<NcclRecord>::CapacityFor(nccl_records) * sizeof(NcclRecord), 64);
  const size_t end =
      at.nvtx_at + SpscRing<NvtxRecord>::CapacityFor(nvtx_records) * sizeof(NvtxRecord);
  at.bytes = RoundUp(end, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  return at;
}

}  // namespace

void ThreadBuffers::Configure(size_t nccl_records, size_t nvtx_records) {
  nccl_records_ = nccl_records;
  nvtx_records_ = nvtx_records;
  buffer_bytes_ = LayoutOf(nccl_records, nvtx_records).bytes;
  max_buffers_ = std::clamp<size_t>(kPoolBytes / buffer_bytes_, 1, kMaxBuffers);
}

ThreadBuffer* ThreadBuffers::Current() {
  ThreadBuffer* b = t_buffer;
  if (b) return b;
  if (t_exiting) return nullptr;
  const uint64_t freed = freed_.load(std::memory_order_acquire);
  if (t_turned_away && t_freed_then == freed) return nullptr;
  b = Acquire();
  if (!b && !t_turned_away) threads_without_buffer_.fetch_add(1, std::memory_order_relaxed);
  t_turned_away = !b;
  t_freed_then = freed;
  t_buffer = b;
  return b;
}

ThreadBuffer* ThreadBuffers::Make() const {
  // Zero pages until a record is written: a thread that records little costs little memory.
  void* mapping =
      mmap(nullptr, buffer_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return nullptr;
  auto* bytes = static_cast<char*>(mapping);
  const Layout at = LayoutOf(nccl_records_, nvtx_records_);
  return new (mapping)
      ThreadBuffer(reinterpret_cast<NcclRecord*>(bytes + at.nccl_at), nccl_records_,
                   reinterpret_cast<NvtxRecord*>(bytes + at.nvtx_at), nvtx_records_);
}

ThreadBuffer* ThreadBuffers::Acquire() {
  std::lock_guard<std::mutex> lock(*g_acquire_lock);
  pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  ThreadBuffer* b = nullptr;
  size_t n = count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n && !b; ++i) {
    ThreadBuffer* cand = slots_[i].load(std::memory_order_relaxed);
    uint32_t expected = ThreadBuffer::kFree;
    if (cand && cand->state.compare_exchange_strong(expected, ThreadBuffer::kActive)) b = cand;
  }
  if (!b) {
    if (n >= max_buffers_) return nullptr;
    b = Make();
    if (!b) return nullptr;
    slots_[n].store(b, std::memory_order_release);
    count_.store(n + 1, std::memory_order_release);
  }
  b->tid = tid;
  b->nvtx_stack.clear();  // a reused buffer: its last thread's ranges are not ours
  std::memset(b->name, 0, sizeof b->name);
  prctl(PR_GET_NAME, b->name);  // 16 bytes, NUL-terminated
  pthread_setspecific(*g_exit_key, b);
  return b;
}

void ThreadBuffers::ResetInChild() {
  g_acquire_lock.RenewInChild();  // the parent's copy may be held forever
  size_t n = count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    ThreadBuffer* b = slots_[i].load(std::memory_order_relaxed);
    if (!b) continue;
    b->nccl.Discard();
    b->nccl.TakeDropped();
    b->nvtx.Discard();
    b->nvtx.TakeDropped();
    b->described_tid = 0;
    if (b == t_buffer) {
      b->tid = static_cast<pid_t>(syscall(SYS_gettid));
    } else if (b->state.load(std::memory_order_relaxed) != ThreadBuffer::kFree) {
      b->state.store(ThreadBuffer::kFree, std::memory_order_relaxed);
    }
  }
  lost_without_buffer_.store(0, std::memory_order_relaxed);
  threads_without_buffer_.store(0, std::memory_order_relaxed);
}

namespace {
// Made at load, not on first use: see comm_registry.cc. Never destroyed.
LoadFirst<ThreadBuffers> g_buffers VPROF_LOAD_FIRST;
}  // namespace

ThreadBuffers& GlobalThreadBuffers() { return *g_buffers; }

}  // namespace vprof
