// The steps of a node (reporter/steps/step_report.h) to and from a node
// summary: the StepsReport header in the summary's Header, each rank's
// RankStepsReport in its Process. This mirrors those structs field by field
// and must follow them when they grow. Decoding checks what the merge relies
// on and says what is wrong, naming the field.
#pragma once

#include <string>

#include "reporter/node_summary/node_summary.pb.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// The header fields of `report`; its ranks go with their processes.
vprof::summary::NodeSteps EncodeNodeSteps(const StepsReport& report);
// Fills the header fields of `report` (no ranks, no full steps). Returns what
// is wrong ("NodeSteps.source: ..."), or "".
std::string DecodeNodeSteps(const vprof::summary::NodeSteps& steps, StepsReport& report);

vprof::summary::RankSteps EncodeRankSteps(const RankStepsReport& rank);
// Fills `rank` (all but rank and file) from `steps`, whose node measured
// from `first_measured` on. Returns what is wrong ("RankSteps.steps[2].step:
// ..."), or "".
std::string DecodeRankSteps(const vprof::summary::RankSteps& steps, uint32_t first_measured,
                            RankStepsReport& rank);

}  // namespace vprof::reporter
