#include "reporter/gpu/gpu_report.h"

#include "vprof_trace.pb.h"

namespace vprof::reporter {

std::string_view GpuCaptureStateName(GpuCaptureState state) {
  switch (state) {
    case GpuCaptureState::kActive:
      return "active";
    case GpuCaptureState::kUnavailable:
      return "unavailable";
    case GpuCaptureState::kSubscriberConflict:
      return "subscriber_conflict";
    case GpuCaptureState::kFailed:
      return "failed";
    case GpuCaptureState::kUnspecified:
      break;
  }
  return "unspecified";
}

std::string_view HwTraceStateName(HwTraceState state) {
  switch (state) {
    case HwTraceState::kOn:
      return "on";
    case HwTraceState::kNotSupported:
      return "not_supported";
    case HwTraceState::kUnavailable:
      return "unavailable";
    case HwTraceState::kNotAsked:
      break;
  }
  return "";
}

std::string_view ApiRecordsName(ApiRecords records) {
  switch (records) {
    case ApiRecords::kAll:
      return "all";
    case ApiRecords::kSelected:
      return "selected";
    case ApiRecords::kNone:
      break;
  }
  return "none";
}

LaunchCostReport LaunchCostReportOf(const vprof::trace::LaunchCostCalibration& calibration) {
  return {calibration.rounds(),
          calibration.launches_per_round(),
          calibration.bare_launch_ns(),
          calibration.traced_launch_ns(),
          calibration.failure(),
          calibration.bare_kernel_gpu_ns(),
          calibration.traced_kernel_gpu_ns(),
          calibration.gpu_failure()};
}

}  // namespace vprof::reporter
