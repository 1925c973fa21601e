// The `vprof` command line: subcommands, options, messages and exit status.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

enum ExitStatus : int {
  kExitOk = 0,
  kExitFailure = 1,        // anything else: an unwritable output file, ...
  kExitUsage = 2,          // bad arguments, or DIR missing, not a directory, without traces
  kExitInputNotWhole = 3,  // a report was produced, but some trace was cut, corrupt or skipped
};

// `args` excludes the program name. The report goes to `out` (or --output),
// errors and warnings to `err`, each prefixed "vprof: ".
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
