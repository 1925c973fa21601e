// Ranks the fast-path candidates of a finished report (its steps, phases,
// communication and GPU sections) and tags each for strict consistency.
#pragma once

#include <optional>
#include <vector>

#include "reporter/consistency/run_contract.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// `contract`: the run's declared contract (--contract), if any.
std::vector<CandidateReport> RankCandidates(const Report& report,
                                            const std::optional<RunContract>& contract);

}  // namespace vprof::reporter
