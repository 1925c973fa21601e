// The NcclFn enum, names and real-function slots, expanded from
// nccl_functions.def.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vprof {

enum class NcclFn : uint16_t {
#define VPROF_NCCL_FN(name, params, args, call) k##name,
#include "nccl_functions.def"
#undef VPROF_NCCL_FN
  kCount
};

inline constexpr size_t kNcclFnCount = static_cast<size_t>(NcclFn::kCount);

// "ncclAllReduce", ... indexed by NcclFn.
const char* nccl_function_name(NcclFn fn);

// The implementation a wrapper forwards to, resolved on first use and cached;
// nullptr when no loaded object other than vprof defines it.
void* real_nccl(NcclFn fn);

// A non-wrapped NCCL function (ncclCommCount, ncclGetVersion, ...) by name,
// resolved like the wrapped ones; cached by the caller.
void* real_nccl_aux(const char* name);

}  // namespace vprof
