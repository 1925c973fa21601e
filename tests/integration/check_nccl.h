// CHECK_NCCL(call): in main() of a test program linked with NCCL, returns 1 with the call and
// NCCL's error text on stderr when the call fails.
#pragma once

#include <nccl.h>

#include <cstdio>

#define CHECK_NCCL(call)                                                      \
  do {                                                                        \
    ncclResult_t r_ = (call);                                                 \
    if (r_ != ncclSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, ncclGetErrorString(r_)); \
      return 1;                                                               \
    }                                                                         \
  } while (0)
