// Each candidate's projected full-step saving: the change it stands for
// replayed on the measured steps (reporter/replay/step_replays.h), or why
// not.
#pragma once

#include <vector>

#include "reporter/candidates/candidate_detectors.h"
#include "reporter/replay/step_replays.h"

namespace vprof::reporter {

// A ledger candidate's saving is carried from the replayed steps to the
// measured ones by the ratio of its time on each (candidate_projections.cc);
// a ratio further than this from 1 is named in its evidence ...
inline constexpr double kCarriedNoted = 0.1;
// ... and above this, the replayed steps hold too little of it to speak for
// the measured ones: the projection is withheld.
inline constexpr double kCarriedMost = 4;

void ProjectCandidates(const StepsReport& steps, const StepReplays& replays,
                       std::vector<DetectedCandidate>& candidates);

}  // namespace vprof::reporter
