// `vprof export --format chrome`: the whole run as one Chrome Trace Event JSON
// document, for Perfetto UI and chrome://tracing. One process per traced
// process, in rank order; CPU threads with NCCL calls, NVTX ranges and CUDA
// API calls; one track per GPU stream; one per communicator for the NCCL
// profiler plugin's collectives; arrows from launches and NCCL calls to their
// kernels. Written process by process, event by event, as the traces are read.
#pragma once

#include <ostream>
#include <string_view>

#include "reporter/export/export_filter.h"
#include "reporter/export/export_plan.h"

namespace vprof::reporter {

// `directory` is named in the document's metadata; what the plan's selection
// asked for and left out, after the events ("vprofExport"), as counted into
// `tally`.
void WriteChromeTimeline(const ExportPlan& plan, std::string_view directory, std::ostream& out,
                         ExportTally& tally);

}  // namespace vprof::reporter
