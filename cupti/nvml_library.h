// The narrow interface to NVML, for device memory: loaded with dlopen by the
// writer thread once the process ran kernels, never linked. NVML needs no
// CUDA context, so reading it touches none of the program's CUDA state.
#pragma once

#include <array>
#include <string>

#include "cupti/nvml_abi.h"

namespace vprof {

struct NvmlLibrary {
#define VPROF_NVML_FN(name, ret, params) ret(*name) params = nullptr;
#include "cupti/nvml_functions.def"
#undef VPROF_NVML_FN
};

// Opens libnvidia-ml.so.1 (the driver's; the loader's search path finds it,
// and the stand-in in tests), finds every row of the table and initialises
// NVML. On failure, *error says which step failed and why.
bool LoadNvml(NvmlLibrary* lib, std::string* error);

// NVML's name of a GPU from CUDA's 16-byte UUID: "GPU-" and the bytes in hex,
// grouped 4-2-2-2-6 ("GPU-fa4ec0de-0000-0000-0000-000000000001").
std::string NvmlUuid(const std::array<char, 16>& bytes);

}  // namespace vprof
