// Which measured step the timeline strip draws: one step, so its ranks can
// share a time axis.
#pragma once

#include <cstdint>
#include <optional>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// The measured full step whose duration is nearest the median (the first of
// equals): a typical step, not the warm-up or an outlier. Without full steps,
// the first measured step of the first rank that has one; none without any.
std::optional<uint32_t> TimelineStep(const StepsReport& steps);

// The rank's report of that step; null when the rank has no such step.
const RankStepReport* RankStep(const RankStepsReport& rank, uint32_t step);

}  // namespace vprof::reporter
