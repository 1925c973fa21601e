// vprof's kernels (fingerprint_kernel.cu: vprof_fingerprint and the calibration's) as nvcc built
// them: a fatbin with machine code for the GPU generations vprof supports and PTX for newer ones,
// embedded by embed_fatbin.py. cuModuleLoadData reads it.
#pragma once

#include <cstddef>

namespace vprof {

extern const unsigned char kFingerprintFatbin[];
extern const size_t kFingerprintFatbinSize;

}  // namespace vprof
