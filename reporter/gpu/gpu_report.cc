#include "reporter/gpu/gpu_report.h"

#include "vprof_trace.pb.h"

namespace vprof::reporter {

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
