// vprof's own cost where the capture calibrated what recording adds to a
// launch (LaunchCostEstimate): one sentence for the report's header and its
// Summary, beside the figures that hold it.
#pragma once

#include <string>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// For the rank whose measured steps hold the most of it: the cost per launch,
// the launches per step, their product per step (host time; the step grows
// by it only where the GPU waits for the host) and its share of the rank's
// mean step window, and the rank's host-bound idle. Empty when no rank has a
// calibration.
std::string LaunchCostSentence(const StepsReport& steps);

}  // namespace vprof::reporter
