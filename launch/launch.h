// What `vprof run` and `vprof slurm` do alike to profile a command: find
// libvprof.so, claim the run's folder, prepare the command's environment and
// manifest, run the command and record how it ended.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "launch/child_process.h"
#include "launch/launch_options.h"
#include "launch/run_manifest.h"

namespace vprof::reporter {

struct Launch {
  Manifest manifest;  // start filled in; the end once Run() returns
  std::vector<std::string> environment;
};

// `folder` may be relative (made absolute here: the command may change
// directory). None after printing why as "vprof: <command>: ...".
std::optional<Launch> PrepareLaunch(const LaunchOptions& options, const std::string& run_id,
                                    const std::string& folder, std::string_view command,
                                    std::ostream& err);

// Runs the command; records its end time, exit status and signal.
ChildEnd RunLaunch(Launch& launch);

// Writes `manifest` to `path`; false after printing why.
bool SaveManifest(const std::string& path, const Manifest& manifest, std::string_view command,
                  std::ostream& err);

}  // namespace vprof::reporter
