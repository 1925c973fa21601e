// The ranks each per-rank chart of the HTML report draws: all of them up to
// kFoldAbove, beyond that those that stand out by the chart's main figure
// (ranks_shown.h), with the caption that says which.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reporter/model/report.h"
#include "reporter/render/ranks_shown.h"

namespace vprof::reporter {

struct ChartRanks {
  RanksShown shown;     // indices into the chart's input (steps.ranks, phases)
  std::string caption;  // "5 of 40 ranks shown: …"; empty when all are shown
};

// The ranks that have `step`, by their window in it; trouble: lost records.
ChartRanks TimelineRanks(const StepsReport& steps, uint32_t step);

// By the window summed over the measured steps; trouble: lost records.
ChartRanks SegmentBarRanks(const StepsReport& steps);

// By the NVTX span; trouble: NVTX ranges dropped.
ChartRanks PhaseBarRanks(const std::vector<ProcessPhasesReport>& phases);

}  // namespace vprof::reporter
