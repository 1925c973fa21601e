// `vprof diff` for people: each section a table of A, B, the change and the
// relative change, at most 100 columns wide.
#pragma once

#include <ostream>

#include "reporter/diff/run_diff.h"

namespace vprof::reporter {

void WriteDiffText(const RunDiff& diff, std::ostream& out);

}  // namespace vprof::reporter
