#include "reporter/gpu/api_records.h"

#include "vprof_trace.pb.h"

namespace vprof::reporter {

// A trace from before api_records was written: the RUNTIME and DRIVER kinds
// were then the only way to have API records, and every kind was enabled
// unless activity_kinds says otherwise.
ApiRecords ApiRecordsOf(const vprof::trace::GpuCaptureStatus& status) {
  switch (status.api_records()) {
    case vprof::trace::API_RECORDS_ALL:
      return ApiRecords::kAll;
    case vprof::trace::API_RECORDS_SELECTED:
      return ApiRecords::kSelected;
    case vprof::trace::API_RECORDS_NONE:
      return ApiRecords::kNone;
    default:
      break;
  }
  for (const std::string& kind : status.activity_kinds()) {
    if (kind == "RUNTIME" || kind == "DRIVER") return ApiRecords::kAll;
  }
  return status.activity_kinds().empty() ? ApiRecords::kAll : ApiRecords::kNone;
}

bool LaunchesRecorded(const GpuRecord& gpu) {
  return gpu.api_calls > 0 || !gpu.capture || ApiRecordsOf(*gpu.capture) != ApiRecords::kNone;
}

}  // namespace vprof::reporter
