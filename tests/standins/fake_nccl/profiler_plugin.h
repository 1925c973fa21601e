// Loading a profiler plugin the way NCCL does, and calling it.
//
// At each communicator's creation the plugin is loaded if it is not yet (process-wide, counted
// per communicator, closed again when the last one is destroyed, as NCCL 2.28 does):
//   NCCL_PROFILER_PLUGIN unset: libnccl-profiler.so; "none" (any case): no plugin; otherwise
//   dlopen(value), and when that fails and the value is a bare name (no '/', not lib*.so),
//   libnccl-profiler-<value>.so. The struct is looked up newest first: ncclProfiler_v6, _v5,
//   _v4, starting at FAKE_NCCL_PROFILER_API (6 by default; 5 behaves like NCCL 2.28, 4 like
//   2.27). A library that cannot be loaded or has no struct means no plugin for the rest of the
//   process, as in NCCL.
// Then init(commHash = a hash of the unique id, commName from the config, nNodes = 1, nranks,
// rank); finalize when the communicator is destroyed or aborted.
#pragma once

#include "nccl.h"
#include "profiler_abi.h"

struct ncclComm;

namespace fake_nccl::profiler {

// After a communicator was created: loads the plugin if needed and calls init. Fails only on a
// malformed FAKE_NCCL_PROFILER_API (the caller then destroys the communicator).
ncclResult_t Attach(ncclComm& comm, const ncclConfig_t* config);
// Before a communicator is freed: finalize, and the plugin closed after the last one.
void Detach(ncclComm& comm);

// The activation mask the plugin set in init (one for the whole process, as in NCCL).
uint64_t Mask();

// One event, described in the v5/v6 layout; for a v4 plugin it is translated as NCCL 2.28
// translates for v4 plugins (Coll and P2p get their group as parent; the API and launch
// events, which v4 does not know, are not sent). Returns the plugin's handle, maybe null.
void* Start(void* context, const profiler_abi::Descr5& descr);
void Stop(void* handle);
void Record(void* handle, int state, profiler_abi::StateArgs* args);

}  // namespace fake_nccl::profiler
