// Reads every trace in step: a k-way merge that always advances the source
// whose next event batch starts earliest, so the ranks' calls to a collective
// are read close together and the matcher's table of half-seen collectives
// stays small. Each event goes to the matcher or the teardown totals.
#pragma once

#include <memory>
#include <vector>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/ingest/trace_source.h"

namespace vprof::reporter {

// `sources` have had Open() called; their index is the process index. Reads
// them to the end, leaving each record() final.
void MergeTraces(const std::vector<std::unique_ptr<TraceSource>>& sources,
                 CollectiveMatcher& matcher, CollectiveStats& stats);

}  // namespace vprof::reporter
