// The coverage self-check: for every process that took part in
// communication, the NCCL work the API wrappers, NCCL's profiler plugin and
// CUPTI each saw, and the communication NCCL never sees (vLLM's custom
// all-reduce, CUDA IPC, copies between GPUs). Every difference between the counts, and every
// member of a communicator that left no trace, becomes a gap with its likely
// causes.
#pragma once

#include <string>
#include <vector>

#include "reporter/ingest/process_record.h"
#include "reporter/model/consistency_report.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// NCCL calls the wrappers saw, plugin contexts or events, NCCL or custom
// all-reduce kernels, CUDA IPC calls, or copies between GPUs (PtoP).
bool TakesPartInCommunication(const ProcessRecord& record);

// NCCL's work was seen somewhere: calls, plugin events or NCCL kernels (what
// the plugin should have reported).
bool RanNcclWork(const ProcessRecord& record);

// Some trace says anything about NCCL's profiler plugin: the check has data.
bool AnyPluginStatus(const std::vector<ProcessRecord>& records);

// The kernels of class "custom_allreduce".
ActivityTotals CustomAllReduceKernels(const GpuRecord& gpu);

// "NCCL profiler plugin not attached: " and why, from its InjectionStatus.
std::string PluginNotAttachedCause(const NcclPluginRecord& plugin);

// `records` and `processes` are indexed alike.
CoverageReport CheckCoverage(const std::vector<ProcessRecord>& records,
                             const std::vector<ProcessReport>& processes,
                             const std::vector<CommunicatorReport>& communicators);

}  // namespace vprof::reporter
