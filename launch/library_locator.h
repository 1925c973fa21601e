// Finds the libvprof.so a launcher puts into the processes it starts.
#pragma once

#include <optional>
#include <string>

namespace vprof::reporter {

struct LibraryLocation {
  std::string path;   // absolute; empty when none was found
  std::string error;  // names the paths tried when none exists
};

// `--library PATH` when given, else $VPROF_LIBRARY, else beside the vprof
// executable `self`: <build>/reporter/vprof → <build>/interpose/libvprof.so
// in a build tree, <prefix>/bin/vprof → <prefix>/lib/libvprof.so installed,
// else in the executable's own folder (the two copied side by side).
// An explicit path (option or variable) that does not exist is an error, not a
// reason to look elsewhere.
LibraryLocation LocateLibrary(const std::optional<std::string>& option, const std::string& self);

// This executable's path (/proc/self/exe).
std::string SelfExecutable();

}  // namespace vprof::reporter
