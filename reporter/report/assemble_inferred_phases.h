// Phase rows inferred from GPU work (inferred_phase.h) for processes without
// NVTX phase ranges: one row per (phase, rule), plus idle.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "reporter/ingest/process_record.h"
#include "reporter/model/report.h"
#include "reporter/phases/inferred_phase_record.h"

namespace vprof::reporter {

// The communicators whose broadcasts are weight sync: those with members of
// both roles (a trainer sending to rollout engines), and those on which every
// collective with linked kernels, in every process, is a broadcast.
// `inputs[i]` is records[i]'s.
std::set<uint64_t> WeightSyncCommunicators(const std::vector<ProcessRecord>& records,
                                           std::span<const InferredPhaseInput> inputs);

// `record`'s kernel time (and CUDA IPC call time) by inferred phase, and
// idle: the kernel span less the time any kernel ran. Longest first.
std::vector<PhaseReport> InferredPhaseRows(const ProcessRecord& record,
                                           const InferredPhaseInput& input,
                                           const std::set<uint64_t>& weight_sync_communicators);

}  // namespace vprof::reporter
