// The text report's GPU parts: one section per process (capture state,
// totals, kernel classes, top kernels, NCCL linkage, stream waits) and, under
// a communicator's op table, the GPU time of the kernels linked to its calls.
#pragma once

#include <ostream>
#include <span>

#include "reporter/report.h"

namespace vprof::reporter {

void WriteGpuSection(const Report& report, std::ostream& out);

// `rows`: one op's rows of a communicator table; writes nothing when no row
// has linked kernels.
void WriteOpGpuTime(std::span<const OpReport> rows, std::ostream& out);

}  // namespace vprof::reporter
