// Reads one process's trace and hands what a timeline shows to a sink, record
// by record, as it streams past: one packet in memory at a time, plus the
// process's interned names, its plugin communicators and what NcclLaunchLinks
// keeps in flight.
#pragma once

#include <cstdint>
#include <string>

#include "reporter/export/export_timeline.h"

namespace vprof::reporter {

// Every time of the file plus `shift_ns` is its place on the export's
// timeline. Reads up to the first bad byte (the report's verdict on the file
// is the caller's business). Records come in file order, with a GpuBatch's
// kinds in the order that lets them refer to each other (correlations, API
// calls, kernels, copies, memsets); a kernel read before its NCCL call's event
// comes with the event, or at the end when the event never comes.
void WalkTrace(const std::string& path, int64_t shift_ns, TimelineSink& sink);

}  // namespace vprof::reporter
