#include "stream.h"

#include <cstring>
#include <thread>
#include <type_traits>

#include "monotonic_clock.h"

namespace fake_cudart {

std::shared_ptr<Stream> Stream::Start() {
  std::shared_ptr<Stream> stream(new Stream());
  std::thread([worker_ref = stream] { worker_ref->RunWorker(); }).detach();
  return stream;
}

void Stream::Enqueue(StreamOp op) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(op));
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
    StreamOp op;
    {
      std::unique_lock lock(mutex_);
      work_available_.wait(lock, [this] { return !queue_.empty(); });
      op = std::move(queue_.front());
      queue_.pop_front();
    }
    const bool retire = std::holds_alternative<RetireOp>(op);
    Execute(op);
    {
      std::lock_guard lock(mutex_);
      ++executed_;
    }
    work_done_.notify_all();
    if (retire) return;
  }
}

void Stream::Execute(const StreamOp& op) {
  std::visit(
      [](const auto& o) {
        using Op = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<Op, KernelOp>) {
          standins::SleepUntilNs(standins::MonotonicNs() + o.duration_ns);
        } else if constexpr (std::is_same_v<Op, CopyOp>) {
          std::memmove(o.dst, o.src, o.bytes);
        } else if constexpr (std::is_same_v<Op, FillOp>) {
          std::memset(o.dst, o.value, o.bytes);
        } else if constexpr (std::is_same_v<Op, RecordOp>) {
          o.record->Complete(standins::MonotonicNs());
        } else if constexpr (std::is_same_v<Op, WaitOp>) {
          o.record->Wait();
        } else {
          static_assert(std::is_same_v<Op, RetireOp>);
        }
      },
      op);
}

}  // namespace fake_cudart
