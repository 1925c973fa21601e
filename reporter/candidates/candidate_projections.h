// Each candidate's projected full-step saving: the change it stands for
// replayed on the measured steps (reporter/replay/step_replays.h), or why
// not.
#pragma once

#include <vector>

#include "reporter/candidates/candidate_detectors.h"
#include "reporter/replay/step_replays.h"

namespace vprof::reporter {

void ProjectCandidates(const StepsReport& steps, const StepReplays& replays,
                       std::vector<DetectedCandidate>& candidates);

}  // namespace vprof::reporter
