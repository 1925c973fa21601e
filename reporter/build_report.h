// Reads a run's trace files and builds the report from them.
#pragma once

#include <string>
#include <vector>

#include "reporter/collective_matcher.h"
#include "reporter/collective_stats.h"
#include "reporter/process_record.h"
#include "reporter/provenance.h"
#include "reporter/report.h"

namespace vprof::reporter {

// Which clock the times of a report are on.
enum class ClockChoice {
  kByHosts,    // CLOCK_REALTIME when the traces span several hosts, else as recorded
  kMonotonic,  // as recorded: each host's CLOCK_MONOTONIC
  kRealtime,   // every process moved to CLOCK_REALTIME by its clock pairs
};

// Everything one pass over a set of trace files yields, before it is turned
// into a Report: what a node summary stores and a merge of summaries rebuilds.
struct GatheredTraces {
  TimeSource time_source;
  std::vector<ProcessRecord> records;      // indexed like the paths
  CollectiveStats stats;                   // process indexes are indexes into records
  std::vector<PendingCollective> pending;  // CollectiveMatcher::TakePending() order
};

// Problems with individual files end up in their records (state, problem),
// never abort the pass.
GatheredTraces GatherTraces(const std::vector<std::string>& paths, ClockChoice clock);

// `paths` as ListTraceFiles(directory) found them; `consistency`: what
// --strict and --contract ask of the run.
Report BuildReport(const std::string& directory, const std::vector<std::string>& paths,
                   const ConsistencyOptions& consistency = {});

}  // namespace vprof::reporter
