// The NCCL wrappers, one per row of nccl_functions.def.
#include <nccl.h>

#include <type_traits>

#include "clock.h"
#include "collective_audit.h"
#include "gpu_capture.h"
#include "log.h"
#include "nccl_calls.h"
#include "nccl_functions.h"
#include "runtime.h"

namespace vprof {
namespace {

// Set while this thread is inside an intercepted call: a nested NCCL call
// (NCCL calling its own exported functions) is forwarded but not recorded.
thread_local bool t_inside = false;

ncclResult_t unresolved(NcclFn fn) {
  VPROF_WARN_ONCE(
      "no NCCL library in this process defines {} (and vprof cannot forward to "
      "itself); returning ncclSystemError to the caller",
      nccl_function_name(fn));
  return ncclSystemError;
}

template <typename Fn, typename Call, typename Invoke>
ncclResult_t intercept(NcclFn fn, Call call, Invoke invoke) {
  auto real = reinterpret_cast<Fn>(real_nccl(fn));
  if (!real) return unresolved(fn);
  if (t_inside) return invoke(real);
  ensure_initialized();
  if (!runtime_tracking()) return invoke(real);
  t_inside = true;
  NcclRecord r{};
  r.function = static_cast<uint16_t>(fn);
  call.before(r);
  // Fingerprints (off by default) go on the call's stream around it, outside
  // the CUPTI correlation below: vprof's kernels are not the call's.
  CallBuffers buffers;
  if constexpr (requires { call.buffers(r); }) buffers = call.buffers(r);
  const bool audit = collective_audit_on();
  if (audit) audit_before_call(r, buffers);
  // Kernels this call enqueues carry its call_id through CUPTI.
  bool correlate = g_gpu_capture_active.load(std::memory_order_relaxed);
  if (correlate) r.call_id = push_gpu_correlation();
  r.enter_ns = now_ns();
  ncclResult_t result = invoke(real);
  r.exit_ns = now_ns();
  if (correlate) pop_gpu_correlation();
  r.result = static_cast<int32_t>(result);
  if (audit) audit_after_call(r, buffers, result);
  call.after(r, result);
  if (runtime_recording()) submit(r);
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
    return intercept<Fn>(NcclFn::k##name, call, [&](Fn real) { return real args; }); \
  }
#include "nccl_functions.def"
#undef VPROF_NCCL_FN

// Loaded by LD_PRELOAD (or dlopen): start before main. Here rather than in
// the core library, so unit tests that link the core start nothing.
__attribute__((constructor)) static void vprof_on_load() { vprof::ensure_initialized(); }
