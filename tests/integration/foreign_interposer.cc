// Another tool's NCCL interposer, preloaded before vprof: it counts
// ncclAllReduce calls and forwards with dlsym(RTLD_NEXT), which finds vprof.
// vprof must then forward to NCCL, not back to this library.
#include <dlfcn.h>
#include <nccl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace {
std::atomic<int> g_calls{0};

__attribute__((destructor)) void report() {
  std::fprintf(stderr, "foreign interposer: %d ncclAllReduce calls\n", g_calls.load());
}
}  // namespace

extern "C" __attribute__((visibility("default"))) ncclResult_t ncclAllReduce(
    const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
    ncclComm_t comm, cudaStream_t stream) {
  ++g_calls;
  using Fn = decltype(&ncclAllReduce);
  auto next = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "ncclAllReduce"));
  if (!next) return ncclSystemError;
  return next(sendbuff, recvbuff, count, datatype, op, comm, stream);
}
