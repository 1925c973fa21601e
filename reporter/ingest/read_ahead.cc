#include "reporter/ingest/read_ahead.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "reporter/base/saturating_ns.h"
#include "reporter/collectives/bandwidth.h"

namespace vprof::reporter {
namespace {

// The NCCL events read ahead and not yet merged, over all processes: about
// 100 bytes each. The merge's visits are long (trace_merge.cc), so reading
// processes side by side needs many of each queued: a run of 1,024 ranks
// that calls NCCL 500 times a rank fits whole.
constexpr size_t kMostQueuedEvents = size_t{1} << 19;

size_t EventsOf(const MergeBatch& batch) { return std::max<size_t>(1, batch.nccl_events); }

void Convert(const TraceSource& source, uint32_t process, MergeBatch& batch) {
  const int64_t offset = source.record().clock_offset_ns;
  const vprof::trace::EventBatch& events = source.batch();
  uint64_t earliest = std::numeric_limits<uint64_t>::max();
  for (const vprof::trace::NcclEvent& event : events.nccl()) {
    earliest = std::min(earliest, event.enter_ns());
    const NcclFunction function = source.FunctionOf(event);
    const Arrival arrival{process, event.comm_rank(),
                          SaturatingAdd(static_cast<int64_t>(event.enter_ns()), offset),
                          SaturatingAdd(static_cast<int64_t>(event.exit_ns()), offset)};
    switch (RoleOf(function)) {
      case FunctionRole::kTeardown:
      case FunctionRole::kCollective:
      case FunctionRole::kPointToPoint:
        batch.calls.push_back(
            {event.comm_id(), event.seq(), function, event.comm_size(),
             event.has_peer() ? std::optional<int32_t>(event.peer()) : std::nullopt,
             CollectiveSizeBytes(function, event.bytes(), event.comm_size()), arrival});
        break;
      // A creating call's event names the communicator it was given (a split's
      // parent); the Communicator packet names the one it made, with the same
      // times, so creations are counted from those packets.
      case FunctionRole::kCreation:
      case FunctionRole::kOther:
        break;
    }
  }
  batch.nccl_events = static_cast<size_t>(events.nccl_size());
  // A batch with no events (only a dropped count) goes first; it matches nothing.
  batch.start_ns = events.nccl().empty() ? std::numeric_limits<int64_t>::min()
                                         : static_cast<int64_t>(earliest) + offset;
}

}  // namespace

ReadAhead::ReadAhead(const std::vector<std::unique_ptr<TraceSource>>& sources, unsigned jobs)
    : sources_(sources), lanes_(sources.size()) {
  for (uint32_t process = 0; process < sources.size(); ++process) {
    std::vector<CollectiveKernelSpan>* spans = &lanes_[process].spans;
    sources[process]->SendCollectiveSpansTo(
        [spans](const CollectiveKernelSpan& span) { spans->push_back(span); });
  }
  const unsigned workers = std::min<size_t>(jobs, sources.size() + 1) - 1;
  if (workers == 0) return;
  read_ahead_ = true;
  for (uint32_t process = 0; process < sources.size(); ++process) {
    to_read_.emplace(lanes_[process].horizon_ns, process);
  }
  for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this] { Work(); });
}

ReadAhead::~ReadAhead() {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    stop_ = true;
  }
  work_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  for (const auto& source : sources_) source->SendCollectiveSpansTo({});
}

MergeBatch ReadAhead::ReadOne(uint32_t process) {
  TraceSource& source = *sources_[process];
  Lane& lane = lanes_[process];
  MergeBatch batch;
  batch.end = !source.ReadNextBatch();
  if (!batch.end) Convert(source, process, batch);
  batch.spans = std::exchange(lane.spans, {});
  batch.bytes_read = source.bytes_read();
  return batch;
}

void ReadAhead::QueueLocked(uint32_t process, MergeBatch batch) {
  Lane& lane = lanes_[process];
  lane.reading = false;
  lane.ended = batch.end;
  if (!batch.calls.empty()) lane.horizon_ns = batch.start_ns;
  queued_events_ += EventsOf(batch);
  lane.ready.push_back(std::move(batch));
  if (read_ahead_ && !lane.ended) {
    to_read_.emplace(lane.horizon_ns, process);
    work_.notify_one();
  }
}

void ReadAhead::Work() {
  std::unique_lock<std::mutex> hold(lock_);
  for (;;) {
    work_.wait(hold, [this] {
      return stop_ || (!to_read_.empty() && queued_events_ < kMostQueuedEvents);
    });
    if (stop_) return;
    const uint32_t process = to_read_.begin()->second;
    to_read_.erase(to_read_.begin());
    lanes_[process].reading = true;
    hold.unlock();
    MergeBatch batch;
    std::exception_ptr failed;
    try {
      batch = ReadOne(process);
    } catch (...) {  // std::bad_alloc on a huge trace: the merge rethrows it
      failed = std::current_exception();
    }
    hold.lock();
    if (failed) {
      lanes_[process].reading = false;
      error_ = failed;
      stop_ = true;
      work_.notify_all();
      ready_.notify_one();
      return;
    }
    QueueLocked(process, std::move(batch));
    ready_.notify_one();
  }
}

MergeBatch ReadAhead::Next(uint32_t process, const ProcessSpanSink& spans) {
  Lane& lane = lanes_[process];
  std::unique_lock<std::mutex> hold(lock_);
  while (lane.ready.empty()) {
    if (error_) std::rethrow_exception(error_);
    if (!lane.reading) {  // no worker has it: read it here rather than wait
      to_read_.erase({lane.horizon_ns, process});
      lane.reading = true;
      hold.unlock();
      MergeBatch batch = ReadOne(process);
      hold.lock();
      QueueLocked(process, std::move(batch));
      break;
    }
    ready_.wait(hold);
  }
  MergeBatch batch = std::move(lane.ready.front());
  lane.ready.pop_front();
  queued_events_ -= EventsOf(batch);
  hold.unlock();
  if (read_ahead_) work_.notify_one();  // room again
  for (const CollectiveKernelSpan& span : batch.spans) spans(process, span);
  return batch;
}

}  // namespace vprof::reporter
