// Runs the command a launcher profiles, as the launcher's only child, passing
// on the signals that would stop it and reporting how it ended.
#pragma once

#include <string>
#include <vector>

namespace vprof::reporter {

struct ChildEnd {
  // What a shell reports: the exit code, or 128 + N for a death by signal N;
  // 127 when the command was not found, 126 when it could not be executed.
  int status = 0;
  int signal = 0;  // the signal that killed it, or 0
};

// Starts `command` (looked up in PATH) with `environment` ("NAME=value") and
// waits for it. SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to this process are
// forwarded to the child, except those a terminal sent to the whole process
// group (the child has them already).
ChildEnd RunChild(const std::vector<std::string>& command,
                  const std::vector<std::string>& environment);

// Whether `program` names a file this process may execute: as a path when it
// holds a '/', else found in `path` (a PATH value) as execvp looks.
bool CanExecute(const std::string& program, const char* path);

// The status a shell gives a command it cannot find.
inline constexpr int kCommandNotFound = 127;

}  // namespace vprof::reporter
