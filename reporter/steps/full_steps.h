// The cross-rank part of the steps report: from each rank's measured steps,
// how many steps every rank has (the measured range), the window sentence,
// and the full steps across ranks with their median. `vprof report DIR`
// computes it from the traces' ranks; a merge of node summaries from the
// ranks the summaries carry, so that both give the same report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// Fills steps_found, last_measured, window, full_steps and median_step_ns of
// `report` from its `ranks` (each holding its steps from first_measured on),
// `first_measured` and `warmup_steps` (the first_measured - warmup_steps steps
// before those came before cudaProfilerStart). When some rank has no measured step, sets
// `problem` instead of the full steps; else builds the ledgers (ledger.h).
// `ranks` must not be empty.
void CompleteFullSteps(StepsReport& report);

// How the full steps spread: the shortest, the 90th percentile (nearest
// rank) and the longest duration, and in how many steps each rank was the
// slowest, most first (ties: lower rank first). Zeros and none without steps.
struct FullStepSpread {
  int64_t shortest_ns = 0;
  int64_t p90_ns = 0;
  int64_t longest_ns = 0;
  uint32_t longest_step = 0;  // the step that took longest_ns, the first on a tie
  std::vector<std::pair<int32_t, size_t>> slowest_rank_steps;  // (rank, steps)
};
FullStepSpread SpreadOf(const std::vector<FullStepReport>& steps);

// The text, Markdown and HTML reports list every full step when there are at
// most this many, else this many of the slowest: a run of thousands of steps
// would bury the report. The JSON report lists them all.
inline constexpr size_t kListedFullSteps = 20;
// The full steps those reports list: all in step order, or the
// kListedFullSteps slowest, slowest first (ties: the earlier step first).
std::vector<const FullStepReport*> ListedFullSteps(const std::vector<FullStepReport>& steps);
// The full steps in one sentence for the reports that list them: "3009
// steps: shortest 9.95 ms, median 11.4 ms, p90 11.9 ms, longest 40.1 ms;
// slowest rank 1 in 2981 steps, 0 in 28; the 20 slowest listed, slowest
// first (the JSON report has every step)". At most three ranks are named.
std::string FullStepsSentence(const StepsReport& report);

}  // namespace vprof::reporter
