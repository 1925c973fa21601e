#include "interpose/core/cuda_driver.h"

#include <dlfcn.h>

#include <type_traits>

namespace vprof {
namespace {

// The table's parameter lists must be the header's.
#define VPROF_CUDA_FN(name, params)                                           \
  static_assert(std::is_same_v<decltype(&::name), CUresult(CUDAAPI*) params>, \
                #name " in cuda_driver_functions.def differs from cuda.h");
#include "interpose/core/cuda_driver_functions.def"
#undef VPROF_CUDA_FN

}  // namespace

bool FindLoadedCudaDriver(CudaDriver* driver, std::string* error) {
  // RTLD_NOLOAD: a process that has not loaded CUDA gets no CUDA from vprof.
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) {
    *error = "no libcuda.so.1 is loaded in this process";
    return false;
  }
  CudaDriver found;
  std::string missing;
#define VPROF_CUDA_FN(name, params)                                          \
  found.name = reinterpret_cast<CUresult(CUDAAPI*) params>(dlsym(h, #name)); \
  if (!found.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
#include "interpose/core/cuda_driver_functions.def"
#undef VPROF_CUDA_FN
  dlclose(h);  // drops only the reference RTLD_NOLOAD took; the runtime's stays
  if (!missing.empty()) {
    *error = "the loaded libcuda.so.1 lacks " + missing;
    return false;
  }
  *driver = found;
  return true;
}

std::string CudaResultString(const CudaDriver& driver, CUresult result) {
  const char* text = nullptr;
  if (driver.cuGetErrorString && driver.cuGetErrorString(result, &text) == CUDA_SUCCESS && text) {
    return "CUDA error " + std::to_string(static_cast<int>(result)) + ": " + text;
  }
  return "CUDA error " + std::to_string(static_cast<int>(result));
}

}  // namespace vprof
