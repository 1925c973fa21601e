#include "reporter/ingest/trace_merge.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "reporter/base/saturating_ns.h"
#include "reporter/collectives/bandwidth.h"
#include "reporter/steps/nvtx_step_collector.h"

namespace vprof::reporter {
namespace {

// How far (on the report's timeline) a process is read past the next one
// before the merge moves on, and the most NCCL calls one visit reads. Each
// visit to a process finds its tables evicted by the other processes', so
// visits must be long: with 1,024 generated ranks, reading 3 s per visit took
// a fifth less CPU time than 0.5 s. The matcher holds the half-seen
// collectives of one visit's span, so a run that calls NCCL thousands of
// times a second ends its visits at the call cap, long before 3 s.
constexpr int64_t kReadAheadNs = 3'000'000'000;
constexpr size_t kMostCallsPerVisit = 4096;

// Where a batch sits on the report's timeline: its earliest enter. A batch
// with no events (only a dropped count) goes first; it matches nothing.
int64_t BatchStart(const vprof::trace::EventBatch& batch, int64_t clock_offset_ns) {
  if (batch.nccl().empty()) return std::numeric_limits<int64_t>::min();
  uint64_t earliest = std::numeric_limits<uint64_t>::max();
  for (const auto& event : batch.nccl()) earliest = std::min(earliest, event.enter_ns());
  return static_cast<int64_t>(earliest) + clock_offset_ns;
}

void Dispatch(const TraceSource& source, uint32_t process, CollectiveMatcher& matcher,
              CollectiveStats& stats) {
  const int64_t offset = source.record().clock_offset_ns;
  for (const vprof::trace::NcclEvent& event : source.batch().nccl()) {
    const NcclFunction function = source.FunctionOf(event);
    const Arrival arrival{process, event.comm_rank(),
                          SaturatingAdd(static_cast<int64_t>(event.enter_ns()), offset),
                          SaturatingAdd(static_cast<int64_t>(event.exit_ns()), offset)};
    switch (RoleOf(function)) {
      case FunctionRole::kTeardown:
        stats.AddTeardownCall(event.comm_id(), function,
                              SaturatingSub(arrival.exit_ns, arrival.enter_ns));
        break;
      case FunctionRole::kCollective:
      case FunctionRole::kPointToPoint: {
        CollectiveCall call{event.comm_id(),
                            event.seq(),
                            function,
                            event.comm_size(),
                            event.has_peer() ? std::optional<int32_t>(event.peer()) : std::nullopt,
                            CollectiveSizeBytes(function, event.bytes(), event.comm_size()),
                            arrival};
        if (auto matched = matcher.Add(call)) stats.AddMatched(*matched);
        break;
      }
      // A creating call's event names the communicator it was given (a split's
      // parent); the Communicator packet names the one it made, with the same
      // times, so creations are counted from those packets.
      case FunctionRole::kCreation:
      case FunctionRole::kOther:
        break;
    }
  }
}

}  // namespace

void MergeTraces(const std::vector<std::unique_ptr<TraceSource>>& sources,
                 CollectiveMatcher& matcher, CollectiveStats& stats,
                 const MergeProgressSink& progress) {
  using Entry = std::pair<int64_t, uint32_t>;  // (batch start, process index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> next_batches;
  MergeProgress read{0, sources.size(), 0};
  const auto advance = [&](uint32_t process) {
    TraceSource& source = *sources[process];
    if (source.ReadNextBatch()) {
      next_batches.emplace(BatchStart(source.batch(), source.record().clock_offset_ns), process);
    } else {
      ++read.files_done;
    }
    read.bytes_read += source.bytes_read();
  };
  const size_t held_works = HeldWorksPerProcess(sources.size());
  for (const auto& source : sources) source->LimitHeldStepWork(held_works);
  for (uint32_t process = 0; process < sources.size(); ++process) advance(process);
  if (progress) progress(read);
  while (!next_batches.empty()) {
    const uint32_t process = next_batches.top().second;
    next_batches.pop();
    // The process's batches up to kReadAheadNs past the next process's, or
    // kMostCallsPerVisit calls, are read in one go.
    const int64_t read_until = next_batches.empty() ? std::numeric_limits<int64_t>::max()
                                                    : next_batches.top().first + kReadAheadNs;
    TraceSource& source = *sources[process];
    const uint64_t bytes_before = source.bytes_read();
    Dispatch(source, process, matcher, stats);
    size_t calls = source.batch().nccl_size();
    bool more = false;
    while (source.ReadNextBatch()) {
      const int64_t start = BatchStart(source.batch(), source.record().clock_offset_ns);
      if (start > read_until || calls >= kMostCallsPerVisit) {
        next_batches.emplace(start, process);
        more = true;
        break;
      }
      Dispatch(source, process, matcher, stats);
      calls += source.batch().nccl_size();
    }
    read.files_done += more ? 0 : 1;
    read.bytes_read += source.bytes_read() - bytes_before;
    if (progress) progress(read);
  }
}

}  // namespace vprof::reporter
