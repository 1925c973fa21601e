// The narrow interface to libcupti: loaded with dlopen only in a process
// that initialises CUDA, never linked. Every function vprof calls is a row of
// cupti_functions.def.
#pragma once

#include <cupti.h>

#include <string>
#include <vector>

namespace vprof {

struct CuptiLibrary {
#define VPROF_CUPTI_FN(name, ret, params) ret(CUPTIAPI* name) params = nullptr;
#include "cupti/cupti_functions.def"
#undef VPROF_CUPTI_FN
  std::string path;
};

// Where libcupti may be, in the order tried: beside the libcudart the process
// has loaded (PyTorch's wheel keeps them together), VPROF_CUPTI_PATH, then
// under the CUDA toolkit (cuda_home: CUDA_HOME or /usr/local/cuda).
std::vector<std::string> CuptiCandidates(const std::string& cudart_dir,
                                         const char* vprof_cupti_path,
                                         const std::string& cuda_home);

// Opens the first candidate that loads and defines every row of the table.
// On failure, *error says what was tried and why each failed.
bool LoadCupti(CuptiLibrary* lib, std::string* error);

// Opens exactly `path` (tests use this with a stand-in).
bool LoadCuptiFrom(const std::string& path, CuptiLibrary* lib, std::string* error);

}  // namespace vprof
