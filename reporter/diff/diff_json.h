// `vprof diff --format json`: the same comparison as the text, every value
// whole (keys: the reporter README, "vprof diff").
#pragma once

#include <ostream>

#include "reporter/diff/run_diff.h"

namespace vprof::reporter {

// Bumped when a key changes meaning or goes away; new keys do not bump it.
inline constexpr int kJsonDiffVersion = 1;

void WriteDiffJson(const RunDiff& diff, std::ostream& out);

}  // namespace vprof::reporter
