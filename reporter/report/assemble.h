// Turns what the merge gathered (per-process records, running totals, the
// collectives left unmatched) into the final Report.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/collectives/cross_rank_gpu_time.h"
#include "reporter/consistency/provenance.h"
#include "reporter/ingest/process_record.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// `records` are indexed like the process indexes in `stats`; `pending` is
// CollectiveMatcher::TakePending()'s order. Coverage and the requested-vs-actual
// comparison are made when `consistency` asks for them or a record says
// anything about NCCL's profiler plugin.
Report AssembleReport(std::string directory, TimeSource time_source,
                      const std::vector<ProcessRecord>& records, const CollectiveStats& stats,
                      const std::vector<PendingCollective>& pending,
                      const ConsistencyOptions& consistency = {});

// Fills the collective_* fields of the communicator tables' op rows from
// the cross-rank totals of the same (communicator, op, size bucket); busbw
// from the median time.
void AddCollectiveGpuTime(const std::map<OpKey, CrossRankTotals>& totals, Report& report);

// The run's steps, made once the processes' reports exist (they give each
// process its rank): from the records' step rows for `vprof report DIR`,
// from the summaries' for a merge. None: no process ran GPU kernels.
using StepsMaker =
    std::function<std::optional<StepsReport>(const std::vector<ProcessReport>& processes)>;

// The tail of the pipeline, the one both `vprof report DIR` (build.cc)
// and `--merge-summaries` (summary_merge.cc) end in, so that a merged report
// is assembled, given its steps and ranked exactly as the whole folder's:
// AssembleReport, the collectives' cross-rank GPU time (`cross_rank`; node
// summaries carry none), the steps, then the candidates, which read all of it.
Report FinishReport(std::string directory, TimeSource time_source,
                    const std::vector<ProcessRecord>& records, const CollectiveStats& stats,
                    const std::vector<PendingCollective>& pending,
                    const std::map<OpKey, CrossRankTotals>& cross_rank,
                    const ConsistencyOptions& consistency, const StepsMaker& make_steps,
                    unsigned jobs = 1);

}  // namespace vprof::reporter
