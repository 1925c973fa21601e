// The NCCL wrappers, one per row of nccl_functions.def.
#include <nccl.h>

#include <type_traits>

#include "cupti/gpu_capture.h"
#include "interpose/audit/collective_audit.h"
#include "interpose/core/clock.h"
#include "interpose/core/log.h"
#include "interpose/core/runtime.h"
#include "interpose/nccl/nccl_calls.h"
#include "interpose/nccl/nccl_functions.h"
#include "interpose/sources.h"

namespace vprof {
namespace {

// Set while this thread is inside an intercepted call: a nested NCCL call
// (NCCL calling its own exported functions) is forwarded but not recorded.
thread_local bool t_inside = false;

ncclResult_t Unresolved(NcclFn fn) {
  VPROF_WARN_ONCE(
      "no NCCL library in this process defines {} (and vprof cannot forward to "
      "itself); returning ncclSystemError to the caller",
      NcclFunctionName(fn));
  return ncclSystemError;
}

template <typename Fn, typename Call, typename Invoke>
ncclResult_t Intercept(NcclFn fn, Call call, Invoke invoke) {
  auto real = reinterpret_cast<Fn>(RealNccl(fn));
  if (!real) return Unresolved(fn);
  if (t_inside) return invoke(real);
  EnsureInitialized(RegisteredSources());
  if (!RuntimeTracking()) return invoke(real);
  t_inside = true;
  NcclRecord r{};
  r.function = static_cast<uint16_t>(fn);
  call.Before(r);
  // Fingerprints (off by default) go on the call's stream around it, outside
  // the CUPTI correlation below: vprof's kernels are not the call's.
  CallBuffers buffers;
  if constexpr (requires { call.Buffers(r); }) buffers = call.Buffers(r);
  const bool audit = CollectiveAuditOn();
  if (audit) AuditBeforeCall(r, buffers);
  // Kernels this call enqueues carry its call_id through CUPTI.
  bool correlate = g_gpu_capture_active.load(std::memory_order_relaxed);
  if (correlate) r.call_id = PushGpuCorrelation();
  r.enter_ns = NowNs();
  ncclResult_t result = invoke(real);
  r.exit_ns = NowNs();
  if (correlate) PopGpuCorrelation();
  r.result = static_cast<int32_t>(result);
  if (audit) AuditAfterCall(r, buffers, result);
  call.After(r, result);
  if (RuntimeRecording()) Submit(r);
  t_inside = false;
  return result;
}

}  // namespace
}  // namespace vprof

// Each wrapper is an extern "C" definition of the function nccl.h declares:
// a parameter list that differs from the header does not compile.
#define VPROF_NCCL_FN(name, params, args, call)                                      \
  extern "C" __attribute__((visibility("default"))) ncclResult_t nccl##name params { \
    using namespace ::vprof;                                                         \
    using Fn = decltype(&::nccl##name);                                              \
    return Intercept<Fn>(NcclFn::k##name, call, [&](Fn real) { return real args; }); \
  }
#include "interpose/nccl/nccl_functions.def"
#undef VPROF_NCCL_FN

// Loaded by LD_PRELOAD (or dlopen): start before main. Here rather than in
// the core library, so unit tests that link the core start nothing.
__attribute__((constructor)) static void vprof_on_load() {
  vprof::EnsureInitialized(vprof::RegisteredSources());
}
