// The report's steps from the processes' step records: warmup and steps
// before cudaProfilerStart left out, each rank's measured steps and totals,
// and the full steps across ranks.
#pragma once

#include <optional>
#include <vector>

#include "reporter/ingest/process_record.h"
#include "reporter/model/report.h"
#include "reporter/steps/step_options.h"
#include "reporter/steps/step_patterns.h"

namespace vprof::reporter {

// None when no process has GPU kernel records (nothing to cut into steps),
// unless GPU capture ran under a deep schedule (the problem then says why);
// otherwise a StepsReport, whose `problem` says why it has no steps when it
// has none. `processes`: the report's, indexed like `records`. The records'
// step rows are moved into the report (ProcessSteps holds none afterwards).
std::optional<StepsReport> BuildStepsReport(std::vector<ProcessRecord>& records,
                                            const std::vector<ProcessReport>& processes,
                                            const StepOptions& options,
                                            const StepPatterns& patterns);

}  // namespace vprof::reporter
