// The `vprof` command line: subcommands, options, messages and exit status.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "reporter/base/exit_status.h"

namespace vprof::reporter {

// `args` excludes the program name. The report goes to `out` (or --output),
// errors and warnings to `err`, each prefixed "vprof: ".
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
