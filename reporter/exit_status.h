// The exit statuses every vprof command shares.
#pragma once

namespace vprof::reporter {

enum ExitStatus : int {
  kExitOk = 0,
  kExitFailure = 1,        // anything else: an unwritable output file, ...
  kExitUsage = 2,          // bad arguments, or DIR missing, not a directory, without traces
  kExitInputNotWhole = 3,  // a report was produced, but some trace was cut, corrupt or skipped
};

}  // namespace vprof::reporter
