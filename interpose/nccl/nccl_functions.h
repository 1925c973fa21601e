// The NcclFn enum, names and real-function slots, expanded from
// nccl_functions.def.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vprof {

enum class NcclFn : uint16_t {
#define VPROF_NCCL_FN(name, params, args, call) k##name,
#include "interpose/nccl/nccl_functions.def"
#undef VPROF_NCCL_FN
  kCount
};

inline constexpr size_t kNcclFnCount = static_cast<size_t>(NcclFn::kCount);

// "ncclAllReduce", ... indexed by NcclFn.
const char* NcclFunctionName(NcclFn fn);

// The interned string id of a function's name in the trace: 1 + NcclFn row,
// written as the trace begins (nccl_drain.h); the row after the table names
// communicators vprof adopted without seeing them created.
inline uint64_t NcclFunctionIid(uint16_t fn) { return uint64_t{fn} + 1; }

// The implementation a wrapper forwards to, resolved on first use and cached;
// nullptr when no loaded object other than vprof defines it.
void* RealNccl(NcclFn fn);

// A non-wrapped NCCL function (ncclCommCount, ncclGetVersion, ...) by name,
// resolved like the wrapped ones; cached by the caller.
void* RealNcclAux(const char* name);

}  // namespace vprof
