// --jobs N: how many threads a command that reads traces may use. The
// result never depends on it; only the time does.
#pragma once

#include "reporter/base/arg_cursor.h"

namespace vprof::reporter {

// The default: the CPUs this process may run on.
unsigned AvailableCpus();

// More threads than this would spend their time waiting for each other.
inline constexpr unsigned kMostJobs = 1024;

// Takes --jobs N or -j N (1 ≤ N ≤ kMostJobs) at the cursor into `jobs`.
OptionUse TakeJobsOption(ArgCursor& arg, unsigned& jobs);

}  // namespace vprof::reporter
