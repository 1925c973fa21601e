// vprof: the command-line entry point; everything else lives in the library.
#include <sys/resource.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "reporter/cli/cli.h"

namespace {

// A report keeps every trace open at once (one per process), which can pass
// the default soft limit of 1024 descriptors on large jobs.
void RaiseOpenFileLimit() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  RaiseOpenFileLimit();
  try {
    return vprof::reporter::RunCli(std::vector<std::string>(argv + 1, argv + argc), std::cout,
                                   std::cerr);
  } catch (const std::exception& error) {
    std::cerr << "vprof: " << error.what() << '\n';
    return vprof::reporter::kExitFailure;
  }
}
