// The line `vprof diff` opens with: which run is slower per step, by how
// much, and where most of the difference is (the step ledger's cause that
// moved most that way, and the rank whose steps moved most).
#pragma once

#include <string>
#include <vector>

#include "reporter/diff/run_diff.h"

namespace vprof::reporter {

std::string DiffVerdict(const std::vector<DiffSection>& sections);

}  // namespace vprof::reporter
