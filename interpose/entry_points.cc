// Entry points other tools call by name (entry_points.def).
#include "runtime.h"

// The CUDA driver's injection hook: it dlopens the library named by
// CUDA_INJECTION64_PATH during cuInit and calls this; 1 means success. The
// library's constructor has usually initialised vprof already; this is
// idempotent. Never fails the driver's initialisation: vprof's own failures
// only disable vprof.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  vprof::ensure_initialized();
  return 1;
}
