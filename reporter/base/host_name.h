// This machine's host name, as libvprof names its trace files.
#pragma once

#include <unistd.h>

#include <string>

namespace vprof::reporter {

inline std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "unknown-host";
  return host;
}

}  // namespace vprof::reporter
