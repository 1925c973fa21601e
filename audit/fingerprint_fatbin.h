// vprof's fingerprint kernel (fingerprint_kernel.cu) as nvcc built it: a
// fatbin with machine code for the GPU generations vprof supports and PTX
// for newer ones, embedded by embed_fatbin.py. cuModuleLoadData reads it.
#pragma once

#include <cstddef>

namespace vprof {

extern const unsigned char kFingerprintFatbin[];
extern const size_t kFingerprintFatbinSize;

}  // namespace vprof
