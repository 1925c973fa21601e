// Ranks the fast-path candidates of a finished report (its steps, phases,
// communication and GPU sections) and tags each for strict consistency.
#pragma once

#include <optional>
#include <vector>

#include "reporter/consistency/run_contract.h"
#include "reporter/model/report.h"
#include "reporter/replay/step_replays.h"

namespace vprof::reporter {

// `contract`: the run's declared contract (--contract), if any. With
// `replays` (of the report's steps), each candidate carries its projected
// full-step saving, and the full-step candidates rank by it.
std::vector<CandidateReport> RankCandidates(const Report& report,
                                            const std::optional<RunContract>& contract,
                                            const StepReplays* replays = nullptr);

}  // namespace vprof::reporter
