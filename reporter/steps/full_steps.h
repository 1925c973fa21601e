// The cross-rank part of the steps report: from each rank's measured steps,
// how many steps every rank has (the measured range), the window sentence,
// and the full steps across ranks with their median. `vprof report DIR`
// computes it from the traces' ranks; a merge of node summaries from the
// ranks the summaries carry, so that both give the same report.
#pragma once

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// Fills steps_found, last_measured, window, full_steps and median_step_ns of
// `report` from its `ranks` (each holding its steps from first_measured on),
// `first_measured` and `warmup_steps` (the first_measured - warmup_steps steps
// before those came before cudaProfilerStart). When some rank has no measured step, sets
// `problem` instead of the full steps. `ranks` must not be empty.
void CompleteFullSteps(StepsReport& report);

}  // namespace vprof::reporter
