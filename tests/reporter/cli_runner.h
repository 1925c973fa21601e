// Test helper: runs the vprof command line in-process and keeps what it printed.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "reporter/cli/cli.h"

namespace vprof::reporter::testing {

struct CliResult {
  int status;
  std::string out;
  std::string err;
};

inline CliResult Run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = RunCli(args, out, err);
  return {status, out.str(), err.str()};
}

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace vprof::reporter::testing
