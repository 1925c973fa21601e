// `vprof diff A B`: compares two runs (their trace directories, or the JSON
// reports `vprof report --format json` wrote): phases, steps, candidates,
// communication and provenance, side by side with the change.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

std::string DiffUsage();

// `args` follow "diff". Returns the exit status.
int RunDiffCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
