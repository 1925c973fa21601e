// vprof's own kernels, which it launches in the program's CUDA contexts
// (interpose/core/fingerprint_kernel.cu): the collective fingerprints (the
// schema's CollectiveFingerprint) and the launch-cost calibration
// (LaunchCostCalibration). Their records are vprof's, not the program's: the
// report leaves them out of its figures, and the exports file them under a
// category of their own.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace vprof::reporter {

inline constexpr std::string_view kFingerprintKernelName = "vprof_fingerprint";
inline constexpr std::array<std::string_view, 2> kCalibrationKernelNames = {"vprof_calibrate",
                                                                            "vprof_calibrate_wait"};

inline bool IsCalibrationKernel(std::string_view name) {
  return std::find(kCalibrationKernelNames.begin(), kCalibrationKernelNames.end(), name) !=
         kCalibrationKernelNames.end();
}

inline bool IsVprofKernel(std::string_view name) {
  return name == kFingerprintKernelName || IsCalibrationKernel(name);
}

}  // namespace vprof::reporter
