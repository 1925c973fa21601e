// Entry points other tools call by name (entry_points.def).
#include "interpose/core/runtime.h"
#include "interpose/nvtx/nvtx_callbacks.h"
#include "interpose/sources.h"

// The CUDA driver's injection hook: it dlopens the library named by
// CUDA_INJECTION64_PATH during cuInit and calls this; 1 means success. The
// library's constructor has usually initialised vprof already; this is
// idempotent. GPU capture starts here (its source's kAtCudaInit row). Never
// fails the driver's initialisation: vprof's own failures only disable vprof.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  vprof::EnsureInitialized(vprof::RegisteredSources());
  vprof::StartAtCudaInit();
  return 1;
}

// NVTX's injection hook (NvtxInitializeInjectionNvtxFunc_t), called once per
// module that uses NVTX; nonzero means vprof's callbacks are installed.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(uint32_t export_table_id)) {
  vprof::EnsureInitialized(vprof::RegisteredSources());
  return vprof::AttachNvtx(get_export_table);
}
