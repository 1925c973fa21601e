// Requested vs actual: what a run asked NCCL for (the NCCL_* variables of each
// process's environment, and the run contract) against what NCCL's profiler
// plugin saw it do (algorithm, protocol and channels of every collective) and
// what kernel names reveal (vLLM's custom all-reduce), with the collectives'
// shapes and the ranks' placement (actual_layout.h). Each process is held
// to its own environment and to the contract; differences are summed over the
// processes. Fingerprints of both sides tell runs apart.
#pragma once

#include <optional>
#include <vector>

#include "reporter/consistency/run_contract.h"
#include "reporter/ingest/process_record.h"
#include "reporter/model/consistency_report.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// What `vprof report` was asked to hold the run to.
struct ConsistencyOptions {
  bool strict = false;                  // --strict
  std::optional<RunContract> contract;  // --contract FILE

  bool requested() const { return strict || contract.has_value(); }
};

// `processes` are the report's rows of `records`, one each (their ranks and hosts).
ConsistencyReport CompareRequestedWithActual(const std::vector<ProcessRecord>& records,
                                             const std::vector<ProcessReport>& processes,
                                             const ConsistencyOptions& options);

}  // namespace vprof::reporter
