#include "reporter/ingest/trace_merge.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "reporter/base/saturating_ns.h"
#include "reporter/ingest/read_ahead.h"
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

void Dispatch(const MergeBatch& batch, CollectiveMatcher& matcher, CollectiveStats& stats) {
  for (const CollectiveCall& call : batch.calls) {
    if (RoleOf(call.function) == FunctionRole::kTeardown) {
      stats.AddTeardownCall(call.comm_id, call.function,
                            SaturatingSub(call.arrival.exit_ns, call.arrival.enter_ns));
    } else if (auto matched = matcher.Add(call)) {
      stats.AddMatched(*matched);
    }
  }
}

}  // namespace

void MergeTraces(const std::vector<std::unique_ptr<TraceSource>>& sources,
                 CollectiveMatcher& matcher, CollectiveStats& stats, const ProcessSpanSink& spans,
                 unsigned jobs, const MergeProgressSink& progress) {
  using Entry = std::pair<int64_t, uint32_t>;  // (batch start, process index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> next_batches;
  MergeProgress read{0, sources.size(), 0};
  const size_t held_works = HeldWorksPerProcess(sources.size());
  for (const auto& source : sources) source->LimitHeldStepWork(held_works);
  ReadAhead ahead(sources, jobs);
  std::vector<MergeBatch> current(sources.size());
  // Takes the process's next batch; false at its file's end.
  const auto advance = [&](uint32_t process) {
    const uint64_t bytes_before = current[process].bytes_read;
    current[process] = ahead.Next(process, spans);
    read.bytes_read += current[process].bytes_read - bytes_before;
    if (current[process].end) ++read.files_done;
    return !current[process].end;
  };
  for (uint32_t process = 0; process < sources.size(); ++process) {
    if (advance(process)) next_batches.emplace(current[process].start_ns, process);
  }
  if (progress) progress(read);
  while (!next_batches.empty()) {
    const uint32_t process = next_batches.top().second;
    next_batches.pop();
    // The process's batches up to kReadAheadNs past the next process's, or
    // kMostCallsPerVisit calls, are read in one go.
    const int64_t read_until = next_batches.empty() ? std::numeric_limits<int64_t>::max()
                                                    : next_batches.top().first + kReadAheadNs;
    Dispatch(current[process], matcher, stats);
    size_t calls = current[process].nccl_events;
    while (advance(process)) {
      const MergeBatch& batch = current[process];
      if (batch.start_ns > read_until || calls >= kMostCallsPerVisit) {
        next_batches.emplace(batch.start_ns, process);
        break;
      }
      Dispatch(batch, matcher, stats);
      calls += batch.nccl_events;
    }
    if (progress) progress(read);
  }
}

}  // namespace vprof::reporter
