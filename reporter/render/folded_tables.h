// The per-rank tables of the Markdown and HTML reports folded for more than
// kFoldAbove ranks, as the text report folds its own: a row per figure (per
// phase, per kernel) with its least, median and most over the ranks and the
// rank at each extreme (SpreadOver, PhasesAcrossRanks). A row per rank of a
// 1,024-rank run buries the report; the JSON report keeps every row.
//
// Each Fold… replaces the table's columns and rows and says in its note what
// was folded.
#pragma once

#include <cstdint>
#include <vector>

#include "reporter/model/report.h"
#include "reporter/render/report_tables.h"

namespace vprof::reporter {

// Over the ranks that have `step`: its start after `earliest_ns`, its window
// and each segment.
void FoldTimelineTable(const StepsReport& steps, uint32_t step, int64_t earliest_ns,
                       ReportTable& table);

// Over the ranks: the measured steps' summed window and each segment.
void FoldSegmentsTable(const StepsReport& steps, ReportTable& table);

// Per phase (NVTX, then inferred) over the processes that have it.
void FoldPhasesTable(const std::vector<ProcessPhasesReport>& phases, ReportTable& table);

// Per top kernel over the processes that list it, most median time first.
void FoldGpuKernelsTable(const std::vector<ProcessReport>& processes, ReportTable& table);

}  // namespace vprof::reporter
