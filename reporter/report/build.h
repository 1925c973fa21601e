// Reads a run's trace files and builds the report from them.
#pragma once

#include <string>
#include <vector>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/collectives/cross_rank_gpu_time.h"
#include "reporter/consistency/provenance.h"
#include "reporter/ingest/process_record.h"
#include "reporter/ingest/trace_merge.h"
#include "reporter/model/report.h"
#include "reporter/steps/step_options.h"

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
  std::vector<ProcessRecord> records;           // indexed like the paths
  CollectiveStats stats;                        // process indexes are indexes into records
  std::vector<PendingCollective> pending;       // CollectiveMatcher::TakePending() order
  std::map<OpKey, CrossRankTotals> cross_rank;  // collectives' cross-rank GPU time
};

// Problems with individual files end up in their records (state, problem),
// never abort the pass. `steps`: how to find steps (and so which steps keep
// their detail). `jobs`: the threads that read the files (the result is the
// same for any number).
GatheredTraces GatherTraces(const std::vector<std::string>& paths, ClockChoice clock,
                            const StepOptions& steps = {}, unsigned jobs = 1);

// Each trace's process record and the clocks they are put on, as
// GatherTraces makes them, less the run's analyses: no collective matching,
// no steps, no cross-rank time (what `vprof export` needs). The records hold
// no step rows.
struct ProcessRecords {
  TimeSource time_source;
  std::vector<ProcessRecord> records;  // indexed like the paths
};
ProcessRecords ReadProcessRecords(const std::vector<std::string>& paths, ClockChoice clock);

// `paths` as ListTraceFiles(directory) found them; `consistency`: what
// --strict and --contract ask of the run.
// `steps`: how to find steps (--step-pattern, --warmup); `progress`: told how
// far the reading of the traces has come (trace_merge.h); `jobs`: the threads
// that read the traces and replay the steps (the report is the same, byte for
// byte, for any number).
Report BuildReport(const std::string& directory, const std::vector<std::string>& paths,
                   const ConsistencyOptions& consistency = {}, const StepOptions& steps = {},
                   const MergeProgressSink& progress = {}, unsigned jobs = 1);

}  // namespace vprof::reporter
