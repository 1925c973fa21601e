// The narrow interface to the CUDA driver: the libcuda the process already
// loaded (through its CUDA runtime), found with dlopen(RTLD_NOLOAD), never
// linked and never loaded by vprof. Every function used is a row of
// cuda_driver_functions.def.
#pragma once

#include <cuda.h>

#include <string>

namespace vprof {

struct CudaDriver {
#define VPROF_CUDA_FN(name, params) CUresult(CUDAAPI* name) params = nullptr;
#include "interpose/core/cuda_driver_functions.def"
#undef VPROF_CUDA_FN
};

// Fills *driver from the loaded libcuda.so.1. False, with *error saying why,
// when the process has none loaded or it lacks a row of the table.
bool FindLoadedCudaDriver(CudaDriver* driver, std::string* error);

// "CUDA_ERROR_...: description" for a driver result, through the driver.
std::string CudaResultString(const CudaDriver& driver, CUresult result);

}  // namespace vprof
