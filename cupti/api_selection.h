// The CUDA API calls the light capture records (capture_plan.h): those the
// report's analyses read, chosen by CUPTI's callback name so that every
// version of an API (cudaMemcpyAsync_v3020, _ptsz_v7000, ...) and both the
// runtime and the driver form are in or out together.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cupti/cupti_library.h"

namespace vprof {

// Whether the activity record of the API CUPTI names `callback_name` is kept:
// launches (kernels, graphs, host functions: steps and NCCL linkage tie GPU
// work to the call that queued it), copies and memsets (not the graph-building
// calls that add copy or memset nodes), event records, stream waits,
// synchronisations, CUDA IPC (weight sync) and profiler start/stop (the
// measured steps).
bool IsSelectedApi(std::string_view callback_name);

struct ApiSelection {
  uint32_t runtime = 0;  // runtime APIs enabled
  uint32_t driver = 0;   // driver APIs enabled
  std::string error;     // the first refusal, when CUPTI refused one
};

// Enables (on) or disables the record of every selected API in both domains,
// walking the callback ids of the cupti.h vprof was built with (an API newer
// than that header is not recorded). Needs cuptiActivityEnableRuntimeApi and
// cuptiActivityEnableDriverApi; RUNTIME and DRIVER must stay disabled, since
// enabling either kind afterwards records every call of its domain.
ApiSelection EnableSelectedApis(const CuptiLibrary& cupti, bool on);

}  // namespace vprof
