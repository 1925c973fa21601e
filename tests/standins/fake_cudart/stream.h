// A fake CUDA stream: one worker thread executing a FIFO of operations in order, the way a
// GPU executes the work queued on one stream.
#pragma once

#include <cuda_runtime_api.h>

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
  // Within one device: which way (cudaMemcpyDefault resolved), and whether the host memory
  // copied from or into is pinned (cudaMallocHost's).
  cudaMemcpyKind direction = cudaMemcpyDefault;
  bool src_pinned = false;
  bool dst_pinned = false;
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
class Graph;      // graph.h
class GraphExec;  // graph.h
// cudaGraphLaunch: the worker waits for the executable graph's previous launch, runs the graph's
// nodes in capture order, then completes `done`.
struct GraphLaunchOp {
  std::shared_ptr<GraphExec> exec;
  std::shared_ptr<EventRecord> previous;  // null for the first launch of `exec`
  std::shared_ptr<EventRecord> done;
};
// cudaStreamDestroy: the worker finishes the queued work, then exits.
struct RetireOp {};

using StreamOp = std::variant<KernelOp, CopyOp, FillOp, RecordOp, WaitOp, GraphLaunchOp, RetireOp>;
// What stream capture puts in a graph; every other operation refuses to be captured.
using NodeOp = std::variant<KernelOp, CopyOp, FillOp>;

class Stream {
 public:
  // Starts the worker thread. The worker owns a reference, so the stream lives until the
  // worker has retired even if every other reference is gone. The thread is detached and never
  // joined: process exit ends it.
  static std::shared_ptr<Stream> Start();

  // Also reports the operation to the activity sink (activity_hooks.h) on the calling thread,
  // as the CUDA API call that queues it. While the stream is capturing, a kernel, copy or fill
  // is reported the same way but appended to the graph being built instead of queued (it runs
  // only when the graph is launched); any other operation (event record or wait, graph launch)
  // is refused (a wait with cudaErrorStreamCaptureIsolation, others with
  // cudaErrorStreamCaptureUnsupported), reports nothing, and invalidates the capture, after which
  // every operation is refused with cudaErrorStreamCaptureInvalidated until
  // cudaStreamEndCapture. RetireOp is never captured.
  cudaError_t Enqueue(StreamOp op);
  // Blocks until every operation enqueued before the call has executed (captured ones are not
  // enqueued).
  void Synchronize();

  // cudaStreamBeginCapture: false if the stream is capturing already.
  bool BeginCapture();
  // cudaStreamEndCapture: ends the capture and returns its graph; cudaErrorIllegalState if the
  // stream was not capturing, cudaErrorStreamCaptureInvalidated (and no graph) if an operation
  // broke the capture.
  cudaError_t EndCapture(std::shared_ptr<Graph>* graph);
  // For a call that is illegal during capture: cudaSuccess if the stream is not capturing;
  // otherwise the capture breaks and the call gets `refusal`, or
  // cudaErrorStreamCaptureInvalidated if it was broken already.
  cudaError_t RefuseInCapture(cudaError_t refusal);
  bool capturing();

 private:
  // An operation with the correlation id the activity sink gave it when it was queued.
  struct QueuedOp {
    StreamOp op;
    uint32_t correlation_id;
  };

  explicit Stream(uint32_t id) : id_(id) {}
  void RunWorker();
  void Execute(const QueuedOp& queued) const;
  void Replay(const GraphLaunchOp& launch, uint32_t correlation_id) const;

  const uint32_t id_;  // the stream's id in activity records
  std::mutex mutex_;
  // Between BeginCapture and EndCapture: the graph being built, and whether the capture broke.
  std::shared_ptr<Graph> capture_;
  bool capture_invalidated_ = false;
  std::condition_variable work_available_;
  std::condition_variable work_done_;
  std::deque<QueuedOp> queue_;
  uint64_t enqueued_ = 0;
  uint64_t executed_ = 0;
};

}  // namespace fake_cudart
