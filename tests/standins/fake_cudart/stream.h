// A fake CUDA stream: one worker thread executing a FIFO of operations in order, the way a
// GPU executes the work queued on one stream.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <variant>

#include "event.h"

namespace fake_cudart {

// A stand-in kernel: it runs for duration_ns. func is kept so that kernels can be named later.
// A kernel of the fake driver (cuLaunchKernel) has a name instead and a body that does its
// work on the host when the stream reaches it.
struct KernelOp {
  const void* func;
  uint64_t duration_ns;
  const char* name = nullptr;
  std::function<void()> body;
};
struct CopyOp {
  void* dst;
  const void* src;
  size_t bytes;
  // cudaMemcpyPeer*: the two devices; -1 for a copy within one device.
  int src_device = -1;
  int dst_device = -1;
};
struct FillOp {
  void* dst;
  int value;
  size_t bytes;
};
// cudaEventRecord: completes the record when the worker reaches it.
struct RecordOp {
  std::shared_ptr<EventRecord> record;
};
// cudaStreamWaitEvent: later work waits until the record completes.
struct WaitOp {
  std::shared_ptr<EventRecord> record;
};
// cudaStreamDestroy: the worker finishes the queued work, then exits.
struct RetireOp {};

using StreamOp = std::variant<KernelOp, CopyOp, FillOp, RecordOp, WaitOp, RetireOp>;

class Stream {
 public:
  // Starts the worker thread. The worker owns a reference, so the stream lives until the
  // worker has retired even if every other reference is gone. The thread is detached and never
  // joined: process exit ends it.
  static std::shared_ptr<Stream> Start();

  // Also reports the operation to the activity sink (activity_hooks.h) on the calling thread,
  // as the CUDA API call that queues it.
  void Enqueue(StreamOp op);
  // Blocks until every operation enqueued before the call has executed.
  void Synchronize();
  // cudaStreamBeginCapture / cudaStreamEndCapture: whether the stream is capturing a graph. The
  // stand-in builds no graph; work queued while capturing runs as at any other time.
  bool capturing() const { return capturing_.load(); }
  void set_capturing(bool on) { capturing_.store(on); }

 private:
  // An operation with the correlation id the activity sink gave it when it was queued.
  struct QueuedOp {
    StreamOp op;
    uint32_t correlation_id;
  };

  explicit Stream(uint32_t id) : id_(id) {}
  void RunWorker();
  void Execute(const QueuedOp& queued) const;

  const uint32_t id_;  // the stream's id in activity records
  std::atomic<bool> capturing_{false};
  std::mutex mutex_;
  std::condition_variable work_available_;
  std::condition_variable work_done_;
  std::deque<QueuedOp> queue_;
  uint64_t enqueued_ = 0;
  uint64_t executed_ = 0;
};

}  // namespace fake_cudart
