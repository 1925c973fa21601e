// Entry points other tools call by name (entry_points.def).
#include "capture/core/runtime.h"
#include "capture/cupti/gpu_capture.h"
#include "capture/nvtx/nvtx_callbacks.h"

// The CUDA driver's injection hook: it dlopens the library named by
// CUDA_INJECTION64_PATH during cuInit and calls this; 1 means success. The
// library's constructor has usually initialised vprof already; this is
// idempotent. Never fails the driver's initialisation: vprof's own failures
// only disable vprof.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  vprof::EnsureInitialized();
  if (vprof::RuntimeTracking() && vprof::GpuCaptureWanted())
    vprof::StartGpuCapture(vprof::CuptiKindsSetting(), vprof::DeepScheduleSetting());
  return 1;
}

// NVTX's injection hook (NvtxInitializeInjectionNvtxFunc_t), called once per
// module that uses NVTX; nonzero means vprof's callbacks are installed.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(uint32_t export_table_id)) {
  vprof::EnsureInitialized();
  return vprof::AttachNvtx(get_export_table);
}
