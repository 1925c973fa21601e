// `vprof run [options] -- CMD ...`: profiles one command (a plain process,
// torchrun, `ray start --head --block`) and everything it starts.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

std::string RunUsage();

// Returns the command's exit status (128 + N for a death by signal N), or
// kExitUsage/kExitFailure when the command could not be started.
int RunRunCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
