// Finds the trace files of a run: every *.vtrace directly in one directory.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

struct TraceFileList {
  std::vector<std::string> paths;  // sorted, so reports do not depend on directory order
  // *.vtrace entries that are no regular file (a link, FIFO, folder, device),
  // not read: why, for people, one per entry, sorted.
  std::vector<std::string> skipped;
  std::string error;  // for people; set when there is nothing to read
  // The directory is missing, not a directory or holds no traces (the
  // caller's mistake), rather than unreadable.
  bool usage_error = false;
};

TraceFileList ListTraceFiles(const std::string& directory);

// For commands that report on a directory: its traces, or none after saying
// why on `err` ("vprof: ..."); entries skipped are named there either way, with *status the exit
// status for it (kExitUsage for the caller's mistake, else kExitFailure). Traces of more than one
// run (run_identity.h) are the caller's mistake; ranks of the run without a trace are named on
// `err`, and the traces returned.
std::optional<std::vector<std::string>> ListTraceFilesOrSay(const std::string& directory,
                                                            std::ostream& err, int* status);

}  // namespace vprof::reporter
