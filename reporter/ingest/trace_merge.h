// Reads every trace in step: a k-way merge that always advances the source
// whose next event batch starts earliest, so the ranks' calls to a collective
// are read close together and the matcher's table of half-seen collectives
// stays small. Each event goes to the matcher or the teardown totals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/ingest/read_ahead.h"
#include "reporter/ingest/trace_source.h"

namespace vprof::reporter {

// How far the merge has come: files read to their end, and bytes read over
// all files. What a progress line shows.
struct MergeProgress {
  size_t files_done = 0;
  size_t files = 0;
  uint64_t bytes_read = 0;
};
using MergeProgressSink = std::function<void(const MergeProgress&)>;

// `sources` have had Open() called; their index is the process index. Reads
// them to the end on up to `jobs` threads (ReadAhead), leaving each record()
// final; their collective kernel spans go to `spans`, on this thread, in the
// same order whatever `jobs`. `progress`, when given, is told after each
// visit to a process (many times a second on a large run).
void MergeTraces(const std::vector<std::unique_ptr<TraceSource>>& sources,
                 CollectiveMatcher& matcher, CollectiveStats& stats, const ProcessSpanSink& spans,
                 unsigned jobs, const MergeProgressSink& progress = {});

}  // namespace vprof::reporter
