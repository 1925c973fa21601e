#include "stream.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

// The runtime's callback ids only: they are how CUPTI names the API call that queued work.
#include <cupti_runtime_cbid.h>

#include "activity_hooks.h"
#include "graph.h"
#include "monotonic_clock.h"
#include "played_costs.h"

namespace fake_cudart {
namespace {

std::atomic<uint32_t> g_last_stream_id{0};

// The runtime API call that queues `op`, as CUPTI's callback id names it.
uint32_t RuntimeCallbackIdOf(const StreamOp& op) {
  if (const auto* copy = std::get_if<CopyOp>(&op)) {
    return copy->src_device >= 0 ? CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000
                                 : CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020;
  }
  if (std::holds_alternative<FillOp>(op)) return CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020;
  if (std::holds_alternative<RecordOp>(op)) return CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020;
  if (std::holds_alternative<WaitOp>(op)) return CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020;
  if (std::holds_alternative<KernelOp>(op)) return CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  if (std::holds_alternative<GraphLaunchOp>(op)) {
    return CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;
  }
  return CUPTI_RUNTIME_TRACE_CBID_INVALID;  // RetireOp: queues nothing a profiler sees
}

// The operation as a graph node, or nothing for one that cannot be captured.
std::optional<NodeOp> AsNode(StreamOp op) {
  return std::visit(
      [](auto&& o) -> std::optional<NodeOp> {
        using Op = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<Op, KernelOp> || std::is_same_v<Op, CopyOp> ||
                      std::is_same_v<Op, FillOp>) {
          return NodeOp(std::move(o));
        } else {
          return std::nullopt;
        }
      },
      std::move(op));
}

// Where a kernel, copy or fill runs: on its own (graph id 0), or as a node of a graph's replay.
struct Placement {
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t graph_id = 0;
  uint64_t node_id = 0;
};

struct Span {
  uint64_t start_ns;
  uint64_t end_ns;
};

// Runs one kernel, copy or fill on the worker and reports it; returns when it ran.
Span Run(const KernelOp& o, const Placement& at) {
  // A timed kernel occupies the stream for exactly its duration; the record says so, not how
  // late a loaded host woke the worker, so tests can compare durations exactly. A kernel with a
  // body (the fake driver's, the fake NCCL's collectives) lasts as long as the body does.
  const uint64_t start_ns = standins::MonotonicNs();
  uint64_t end_ns = start_ns + o.duration_ns;
  if (o.body) {
    o.body();
    end_ns = std::max(end_ns, standins::MonotonicNs());
  }
  standins::SleepUntilNs(end_ns);
  ReportKernel(o.func, o.name, at.stream_id, at.correlation_id, at.graph_id, at.node_id, start_ns,
               end_ns);
  return {start_ns, end_ns};
}

Span Run(const CopyOp& o, const Placement& at) {
  const uint64_t start_ns = standins::MonotonicNs();
  std::memmove(o.dst, o.src, o.bytes);
  standins::SleepUntilNs(start_ns + CopyFloorNs(o.bytes));
  const uint64_t end_ns = standins::MonotonicNs();
  if (o.src_device >= 0) {
    ReportPeerMemcpy(o.bytes, o.src_device, o.dst_device, at.stream_id, at.correlation_id,
                     at.graph_id, at.node_id, start_ns, end_ns);
  } else {
    ReportMemcpy(o.bytes, o.direction, o.src_pinned, o.dst_pinned, at.stream_id, at.correlation_id,
                 at.graph_id, at.node_id, start_ns, end_ns);
  }
  return {start_ns, end_ns};
}

// Fills are not reported (the fake CUPTI writes no memset records).
Span Run(const FillOp& o, const Placement&) {
  const uint64_t start_ns = standins::MonotonicNs();
  std::memset(o.dst, o.value, o.bytes);
  return {start_ns, standins::MonotonicNs()};
}

}  // namespace

std::shared_ptr<Stream> Stream::Start() {
  std::shared_ptr<Stream> stream(new Stream(g_last_stream_id.fetch_add(1) + 1));
  std::thread([worker_ref = stream] { worker_ref->RunWorker(); }).detach();
  return stream;
}

cudaError_t Stream::Enqueue(StreamOp op) {
  const bool retire = std::holds_alternative<RetireOp>(op);
  std::shared_ptr<Graph> capture;
  if (!retire) {
    std::lock_guard lock(mutex_);
    if (capture_invalidated_) return cudaErrorStreamCaptureInvalidated;
    capture = capture_;
  }
  if (capture) {
    const uint32_t cbid = RuntimeCallbackIdOf(op);
    // As measured on CUDA 13: a wait for an event recorded outside the capture (every event,
    // here) breaks it with cudaErrorStreamCaptureIsolation.
    const cudaError_t refusal = std::holds_alternative<WaitOp>(op)
                                    ? cudaErrorStreamCaptureIsolation
                                    : cudaErrorStreamCaptureUnsupported;
    std::optional<NodeOp> node = AsNode(std::move(op));
    if (!node) return RefuseInCapture(refusal);
    // The API call is recorded as at any time, with a correlation id of its own that no GPU
    // activity will carry: the node's activity carries its graph launch's.
    ReportQueued(cbid);
    capture->Add(std::move(*node));
    return cudaSuccess;
  }
  const uint32_t correlation_id = retire ? 0 : ReportQueued(RuntimeCallbackIdOf(op));
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(op), correlation_id});
    ++enqueued_;
  }
  work_available_.notify_one();
  return cudaSuccess;
}

void Stream::Synchronize() {
  std::unique_lock lock(mutex_);
  const uint64_t target = enqueued_;
  work_done_.wait(lock, [&] { return executed_ >= target; });
}

bool Stream::BeginCapture() {
  std::lock_guard lock(mutex_);
  if (capture_) return false;
  capture_ = std::make_shared<Graph>();
  capture_invalidated_ = false;
  return true;
}

cudaError_t Stream::EndCapture(std::shared_ptr<Graph>* graph) {
  std::lock_guard lock(mutex_);
  graph->reset();
  if (!capture_) return cudaErrorIllegalState;
  const bool invalidated = std::exchange(capture_invalidated_, false);
  std::shared_ptr<Graph> built = std::move(capture_);
  capture_.reset();
  if (invalidated) return cudaErrorStreamCaptureInvalidated;
  *graph = std::move(built);
  return cudaSuccess;
}

cudaError_t Stream::RefuseInCapture(cudaError_t refusal) {
  std::lock_guard lock(mutex_);
  if (!capture_) return cudaSuccess;
  if (capture_invalidated_) return cudaErrorStreamCaptureInvalidated;
  capture_invalidated_ = true;
  return refusal;
}

bool Stream::capturing() {
  std::lock_guard lock(mutex_);
  return capture_ != nullptr;
}

void Stream::RunWorker() {
  for (;;) {
    QueuedOp queued;
    {
      std::unique_lock lock(mutex_);
      work_available_.wait(lock, [this] { return !queue_.empty(); });
      queued = std::move(queue_.front());
      queue_.pop_front();
    }
    const bool retire = std::holds_alternative<RetireOp>(queued.op);
    Execute(queued);
    {
      std::lock_guard lock(mutex_);
      ++executed_;
    }
    work_done_.notify_all();
    if (retire) return;
  }
}

void Stream::Execute(const QueuedOp& queued) const {
  const uint32_t correlation_id = queued.correlation_id;
  std::visit(
      [this, correlation_id](const auto& o) {
        using Op = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<Op, KernelOp> || std::is_same_v<Op, CopyOp> ||
                      std::is_same_v<Op, FillOp>) {
          Run(o, Placement{id_, correlation_id});
        } else if constexpr (std::is_same_v<Op, RecordOp>) {
          // Reported first, so that a wait it releases is never reported before it.
          const uint64_t now_ns = standins::MonotonicNs();
          ReportEventRecord(o.record->event_id(), o.record->sync_id(), id_, correlation_id, now_ns);
          o.record->Complete(now_ns);
        } else if constexpr (std::is_same_v<Op, WaitOp>) {
          const uint64_t start_ns = standins::MonotonicNs();
          o.record->Wait();
          ReportStreamWait(o.record->event_id(), o.record->sync_id(), id_, correlation_id, start_ns,
                           standins::MonotonicNs());
        } else if constexpr (std::is_same_v<Op, GraphLaunchOp>) {
          Replay(o, correlation_id);
        } else {
          static_assert(std::is_same_v<Op, RetireOp>);
        }
      },
      queued.op);
}

// Every node's activity carries the launch's correlation id; the whole replay is reported last,
// from the first node's start to the last node's end (an empty graph: the instant it ran).
void Stream::Replay(const GraphLaunchOp& launch, uint32_t correlation_id) const {
  if (launch.previous) launch.previous->Wait();
  const GraphExec& exec = *launch.exec;
  std::optional<Span> whole;
  for (const GraphNode& node : exec.nodes()) {
    const Placement at{id_, correlation_id, exec.graph_id(), node.id};
    const Span span = std::visit([&at](const auto& o) { return Run(o, at); }, node.op);
    whole = Span{whole ? whole->start_ns : span.start_ns, span.end_ns};
  }
  if (!whole) {
    const uint64_t now_ns = standins::MonotonicNs();
    whole = Span{now_ns, now_ns};
  }
  ReportGraphReplay(exec.graph_id(), id_, correlation_id, whole->start_ns, whole->end_ns);
  launch.done->Complete(whole->end_ns);
}

}  // namespace fake_cudart
