// What fixing a candidate buys and how far the replay behind it can be
// trusted, as every output says it (reporter/replay/).
#pragma once

#include <string>

#include "reporter/model/candidate_report.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// "saves 9.1 ms per step (47%), projected" (with_change: "..., projected
// with rank 3 running like rank 0"), or "saving not projected: why"; empty
// for a candidate the replay was not asked about.
std::string ProjectionText(const CandidateReport& candidate, bool with_change);

// "the replay of 8 full steps reproduces the measured step within 1.8%
// (measured 20.1 ms, replayed 19.8 ms); ..." with the edges assumed and,
// where projections are withheld, why.
std::string ReplayCheckText(const ReplayCheck& check);

}  // namespace vprof::reporter
