// A process's GPU totals (gpu_record.h) to and from a node summary. They
// concern one process only, so a summary carries them whole; this mirrors
// GpuRecord field by field and must follow it when it grows.
#pragma once

#include <map>
#include <string>

#include "reporter/gpu/gpu_record.h"
#include "reporter/node_summary/node_summary.pb.h"

namespace vprof::reporter {

vprof::summary::GpuTotals EncodeGpu(const GpuRecord& record);
void EncodeActivity(const ActivityTotals& totals, vprof::summary::ActivityTotals* out);
ActivityTotals DecodeActivity(const vprof::summary::ActivityTotals& totals);
// Totals by name (kernels, API calls) as repeated NamedTotals.
void EncodeNamedTotals(const std::map<std::string, ActivityTotals>& totals,
                       google::protobuf::RepeatedPtrField<vprof::summary::NamedTotals>& out);
std::map<std::string, ActivityTotals> DecodeNamedTotals(
    const google::protobuf::RepeatedPtrField<vprof::summary::NamedTotals>& rows);
GpuRecord DecodeGpu(const vprof::summary::GpuTotals& totals);

}  // namespace vprof::reporter
