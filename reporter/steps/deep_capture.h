// What deep windows (VPROF_DEEP other than always) mean for a process's
// steps: which were analyzed, and what deep capture added to a step, measured
// on the program itself by comparing its NVTX steps inside and outside the
// windows. That difference is vprof's own cost, and the report states it
// beside the figures it inflates (host-bound idle first of all).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reporter/steps/step_report.h"
#include "reporter/steps/step_store.h"

namespace vprof::reporter {

// None for a process that recorded GPU activity for its whole run.
// `store`: the process's store the report uses (NVTX or inferred steps).
std::optional<DeepCaptureReport> DeepCaptureOf(const ProcessSteps& steps, const StepStore& store);

// One sentence over the ranks for the text reports: the schedule, the
// windows, the steps analyzed and left out, and what deep capture added to a
// step (the median over the ranks that have NVTX steps on both sides); the
// steps left out include those of deep_without_steps, whose processes it
// names. Empty when no rank ran under a deep schedule (without ranks, the
// steps' problem says why).
std::string DeepCaptureSentence(const StepsReport& steps);

// Why no step is analyzed when the processes found steps but no deep window
// held one whole (windows shorter than a step): `unheld`, the deep capture of
// each such process. Empty when that is not why (no steps outside windows).
std::string NoStepHeldProblem(const std::vector<DeepCaptureReport>& unheld);

// Why a capture under a deep schedule has no GPU kernel records: no window
// opened (`windows` 0), or the windows held no kernel.
std::string NoGpuActivityProblem(const std::string& schedule, uint32_t windows);

}  // namespace vprof::reporter
