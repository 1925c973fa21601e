// The report's phase rows (ProcessPhasesReport): from the processes' NVTX
// phase totals, or inferred from the GPU work of processes without them.
#pragma once

#include <span>
#include <vector>

#include "reporter/ingest/process_record.h"
#include "reporter/model/report.h"
#include "reporter/phases/inferred_phase_record.h"

namespace vprof::reporter {

// `processes` are `records` as ProcessReports, in the same order, and so are
// `inputs` when given; without them no process gets a role or inferred rows.
std::vector<ProcessPhasesReport> PhaseReports(const std::vector<ProcessRecord>& records,
                                              const std::vector<ProcessReport>& processes,
                                              std::span<const InferredPhaseInput> inputs = {});

}  // namespace vprof::reporter
