// The report's phase rows (ProcessPhasesReport) from the processes' NVTX
// phase totals.
#pragma once

#include <vector>

#include "reporter/process_record.h"
#include "reporter/report.h"

namespace vprof::reporter {

// `processes` are `records` as ProcessReports, in the same order.
std::vector<ProcessPhasesReport> PhaseReports(const std::vector<ProcessRecord>& records,
                                              const std::vector<ProcessReport>& processes);

}  // namespace vprof::reporter
