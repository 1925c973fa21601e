#include "stream.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <type_traits>

// The runtime's callback ids only: they are how CUPTI names the API call that queued work.
#include <cupti_runtime_cbid.h>

#include "activity_hooks.h"
#include "monotonic_clock.h"

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
  return CUPTI_RUNTIME_TRACE_CBID_INVALID;  // RetireOp: queues nothing a profiler sees
}

}  // namespace

std::shared_ptr<Stream> Stream::Start() {
  std::shared_ptr<Stream> stream(new Stream(g_last_stream_id.fetch_add(1) + 1));
  std::thread([worker_ref = stream] { worker_ref->RunWorker(); }).detach();
  return stream;
}

void Stream::Enqueue(StreamOp op) {
  const uint32_t correlation_id =
      std::holds_alternative<RetireOp>(op) ? 0 : ReportQueued(RuntimeCallbackIdOf(op));
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(op), correlation_id});
    ++enqueued_;
  }
  work_available_.notify_one();
}

void Stream::Synchronize() {
  std::unique_lock lock(mutex_);
  const uint64_t target = enqueued_;
  work_done_.wait(lock, [&] { return executed_ >= target; });
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
        const uint64_t start_ns = standins::MonotonicNs();
        if constexpr (std::is_same_v<Op, KernelOp>) {
          // A timed kernel occupies the stream for exactly its duration; the record says so,
          // not how late a loaded host woke the worker, so tests can compare durations exactly.
          // A kernel with a body (the fake driver's, the fake NCCL's collectives) lasts as long
          // as the body does.
          uint64_t end_ns = start_ns + o.duration_ns;
          if (o.body) {
            o.body();
            end_ns = std::max(end_ns, standins::MonotonicNs());
          }
          standins::SleepUntilNs(end_ns);
          ReportKernel(o.func, o.name, id_, correlation_id, start_ns, end_ns);
        } else if constexpr (std::is_same_v<Op, CopyOp>) {
          std::memmove(o.dst, o.src, o.bytes);
          if (o.src_device >= 0) {
            ReportPeerMemcpy(o.bytes, o.src_device, o.dst_device, id_, correlation_id, start_ns,
                             standins::MonotonicNs());
          } else {
            ReportMemcpy(o.bytes, id_, correlation_id, start_ns, standins::MonotonicNs());
          }
        } else if constexpr (std::is_same_v<Op, FillOp>) {
          std::memset(o.dst, o.value, o.bytes);
        } else if constexpr (std::is_same_v<Op, RecordOp>) {
          // Reported first, so that a wait it releases is never reported before it.
          ReportEventRecord(o.record->event_id(), o.record->sync_id(), id_, correlation_id,
                            start_ns);
          o.record->Complete(start_ns);
        } else if constexpr (std::is_same_v<Op, WaitOp>) {
          o.record->Wait();
          ReportStreamWait(o.record->event_id(), o.record->sync_id(), id_, correlation_id, start_ns,
                           standins::MonotonicNs());
        } else {
          static_assert(std::is_same_v<Op, RetireOp>);
        }
      },
      queued.op);
}

}  // namespace fake_cudart
