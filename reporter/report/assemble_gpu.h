// Turns what the merge gathered about GPU activity into report data: each
// process's GpuReport, and the kernel time linked to NCCL calls in the
// communicator tables' op rows.
#pragma once

#include <map>
#include <vector>

#include "reporter/collectives/collective_stats.h"
#include "reporter/gpu/gpu_record.h"
#include "reporter/gpu/gpu_report.h"
#include "reporter/ingest/process_record.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

GpuReport ToGpuReport(const GpuRecord& record);

// Every process's linked kernel time per communicator op row, summed.
std::map<OpKey, LinkedGpuTime> SumCollectiveGpuTime(const std::vector<ProcessRecord>& records);

// Fills the gpu_* fields of the op row `key` names.
void AddGpuTime(const std::map<OpKey, LinkedGpuTime>& gpu_time, const OpKey& key, OpReport& op);

}  // namespace vprof::reporter
