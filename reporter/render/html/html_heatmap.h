// The HTML report's rank × step view: a cell per rank and measured step,
// coloured by the step's time on that rank (its window) or by its lateness
// (how long after the earliest rank it started the step), drawn on a canvas
// by web/heatmap.js from the data written here. The picture a many-rank run
// is read from first: a slow rank is a dark row, a slow step a dark column.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// At most this many cells: beyond, the first steps that fit are kept (a
// 1,024-rank run keeps about 250 steps) and the page says so.
inline constexpr size_t kMaxHeatmapCells = 262'144;

struct RankStepHeatmap {
  std::vector<std::string> ranks;  // "rank 3", or the file of a process without a rank
  std::vector<uint32_t> steps;     // step numbers (StepNumber), ascending
  // [rank][step]: none where the rank did not measure the step.
  std::vector<std::vector<std::optional<int64_t>>> window_ns;
  std::vector<std::vector<std::optional<int64_t>>> lateness_ns;
  uint32_t steps_left_out = 0;  // measured steps past the cell cap
};

RankStepHeatmap BuildRankStepHeatmap(const StepsReport& steps, size_t max_cells = kMaxHeatmapCells);

// The section, with its data and script. `timeline_step`: the step number
// the page draws span by span (a click on its column goes there); none
// without that timeline.
void WriteHtmlHeatmap(const StepsReport& steps, std::optional<uint32_t> timeline_step,
                      std::ostream& out);

}  // namespace vprof::reporter
