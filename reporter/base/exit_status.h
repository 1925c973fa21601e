// The exit statuses every vprof command shares.
#pragma once

namespace vprof::reporter {

enum ExitStatus : int {
  kExitOk = 0,
  kExitFailure = 1,        // anything else: an unwritable output file, ...
  kExitUsage = 2,          // bad arguments, or DIR missing, not a directory, without traces
  kExitInputNotWhole = 3,  // a report was produced, but some trace was cut, corrupt or skipped
  // A report was produced, but the run is strict (--strict, or a contract's
  // "consistency": "strict") and ran differently from what it requested or
  // declared, or left no evidence to show it did not (fail closed). Takes
  // precedence over kExitInputNotWhole.
  kExitStrictViolation = 4,
};

}  // namespace vprof::reporter
