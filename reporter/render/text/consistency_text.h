// The text report's coverage section (per process: NCCL work as the
// wrappers, the profiler plugin and CUPTI saw it; the gaps and their causes)
// and its consistency section (requested vs actual, fingerprints, mismatches).
#pragma once

#include <ostream>

#include "reporter/model/report.h"

namespace vprof::reporter {

// Both sections, or one line saying why they were not made.
void WriteConsistencySections(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
