// The text report's GPU parts: one section per process (capture state,
// totals, kernel classes, top kernels, NCCL linkage, stream waits) and, under
// a communicator's op table, the GPU time of the kernels linked to its calls.
#pragma once

#include <ostream>
#include <span>

#include "reporter/model/report.h"

namespace vprof::reporter {

// With more than kFoldAbove processes, blocks only for those that stand out
// and one line summing up the rest: 1,024 blocks of twenty lines bury the
// report.
void WriteGpuSection(const Report& report, std::ostream& out);

// `rows`: one op's rows of a communicator table; writes nothing when no row
// has linked kernels.
void WriteOpGpuTime(std::span<const OpReport> rows, std::ostream& out);

}  // namespace vprof::reporter
