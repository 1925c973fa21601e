// `vprof export --format hta`: one Kineto-style JSON file per rank, as the
// PyTorch profiler writes them, for Meta's Holistic Trace Analysis:
// `rank-<R>.json` with schemaVersion, deviceProperties, distributedInfo
// (backend, rank, world_size), baseTimeNanoseconds and traceEvents in
// Kineto's categories and argument names. Written rank by rank, event by
// event, as each trace is read.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

#include "reporter/export/export_filter.h"
#include "reporter/export/export_plan.h"

namespace vprof::reporter {

// Writes into `out_dir` (created when missing) and returns how many files it
// wrote. Processes without a rank are left out, as is a second process
// claiming a rank already written; each is named on `err`. None after saying
// on `err` what could not be written.
// What the plan's selection leaves out is counted into `tally`.
std::optional<size_t> WriteHtaTraces(const ExportPlan& plan, const std::string& out_dir,
                                     ExportTally& tally, std::ostream& err);

// rank-<R>.json
std::string HtaFileName(int32_t rank);

}  // namespace vprof::reporter
