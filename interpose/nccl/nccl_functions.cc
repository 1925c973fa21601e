#include "interpose/nccl/nccl_functions.h"

#include <atomic>

#include "interpose/core/log.h"
#include "interpose/core/symbol_resolver.h"

namespace vprof {
namespace {

constexpr const char* kNames[] = {
#define VPROF_NCCL_FN(name, params, args, call) "nccl" #name,
#include "interpose/nccl/nccl_functions.def"
#undef VPROF_NCCL_FN
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNcclFnCount);

std::atomic<void*> g_real[kNcclFnCount] = {};

}  // namespace

const char* NcclFunctionName(NcclFn fn) { return kNames[static_cast<size_t>(fn)]; }

void* RealNccl(NcclFn fn) {
  auto& slot = g_real[static_cast<size_t>(fn)];
  void* p = slot.load(std::memory_order_acquire);
  if (p) return p;
  // Two threads may resolve at once; both find the same address.
  p = ResolveRealSymbol(kNames[static_cast<size_t>(fn)]);
  if (p) {
    slot.store(p, std::memory_order_release);
    LogDebug("{} resolved to {}", kNames[static_cast<size_t>(fn)], p);
  }
  return p;
}

void* RealNcclAux(const char* name) { return ResolveRealSymbol(name); }

}  // namespace vprof
