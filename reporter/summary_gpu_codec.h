// A process's GPU totals (gpu_record.h) to and from a node summary. They
// concern one process only, so a summary carries them whole; this mirrors
// GpuRecord field by field and must follow it when it grows.
#pragma once

#include "reporter/gpu_record.h"
#include "reporter/node_summary.pb.h"

namespace vprof::reporter {

vprof::summary::GpuTotals EncodeGpu(const GpuRecord& record);
void EncodeActivity(const ActivityTotals& totals, vprof::summary::ActivityTotals* out);
ActivityTotals DecodeActivity(const vprof::summary::ActivityTotals& totals);
GpuRecord DecodeGpu(const vprof::summary::GpuTotals& totals);

}  // namespace vprof::reporter
