#include "reporter/steps/step_report.h"

namespace vprof::reporter {

std::string_view ExposureReasonName(ExposureReason reason) {
  switch (reason) {
    case ExposureReason::kSameStream:
      return "same_stream";
    case ExposureReason::kMaxConnectionsOne:
      return "max_connections_1";
    case ExposureReason::kNothingToOverlap:
      return "nothing_to_overlap";
    case ExposureReason::kWaitedAtOnce:
      return "waited_at_once";
    case ExposureReason::kOther:
      break;
  }
  return "other";
}

ExposureReason ExposureReasonNamed(std::string_view name) {
  for (const ExposureReason reason :
       {ExposureReason::kMaxConnectionsOne, ExposureReason::kNothingToOverlap,
        ExposureReason::kSameStream, ExposureReason::kWaitedAtOnce}) {
    if (ExposureReasonName(reason) == name) return reason;
  }
  return ExposureReason::kOther;
}

std::string_view StepSourceName(StepSource source) {
  return source == StepSource::kNvtx ? "nvtx" : "inferred_optimizer_kernels";
}

}  // namespace vprof::reporter
