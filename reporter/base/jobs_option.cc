#include "reporter/base/jobs_option.h"

#include <sched.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>

namespace vprof::reporter {

unsigned AvailableCpus() {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) {
    return static_cast<unsigned>(std::max(1, CPU_COUNT(&cpus)));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

OptionUse TakeJobsOption(ArgCursor& arg, unsigned& jobs) {
  if (arg.name() != "--jobs" && arg.name() != "-j") return OptionUse::kNotMine;
  const std::string option(arg.name());
  const std::optional<uint32_t> count = arg.CountValue();
  if (!count) return OptionUse::kBad;
  if (*count == 0 || *count > kMostJobs) {
    arg.Complain(option + " needs a number of threads from 1 to " + std::to_string(kMostJobs) +
                 ", not " + std::to_string(*count));
    return OptionUse::kBad;
  }
  jobs = *count;
  return OptionUse::kTaken;
}

}  // namespace vprof::reporter
