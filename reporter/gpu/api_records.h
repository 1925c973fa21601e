// Which API calls a process's GPU capture recorded, from its GpuCaptureStatus.
#pragma once

#include "common/gpu_kinds.h"
#include "reporter/gpu/gpu_record.h"

namespace vprof::reporter {

// The capture side's own three answers (VPROF_CUPTI_KINDS's API records).
using vprof::ApiRecords;

ApiRecords ApiRecordsOf(const vprof::trace::GpuCaptureStatus& status);

// Whether the process's launches have records, which put its GPU work into
// steps: false only where its capture status says no API call was recorded
// and none was.
bool LaunchesRecorded(const GpuRecord& gpu);

}  // namespace vprof::reporter
