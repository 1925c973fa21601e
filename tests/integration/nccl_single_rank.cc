// One rank, one communicator, a few collectives: the smallest NCCL program.
// It links libnccl directly (global scope), unlike the simulated trainer.
//   nccl_single_rank [ITERATIONS [SECONDS]]
// SECONDS: then it sleeps that long before it destroys the communicator (a
// recording process for a signal to end).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "check_nccl.h"

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 3;
  ncclUniqueId id;
  CHECK_NCCL(ncclGetUniqueId(&id));
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
  float* buf = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&buf), 1024 * sizeof(float)) != cudaSuccess) return 1;
  for (int i = 0; i < 1024; ++i) buf[i] = 1.0f;  // the stand-in's memory is host memory
  for (int i = 0; i < iterations; ++i) {
    CHECK_NCCL(ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, comm, nullptr));
  }
  CHECK_NCCL(ncclBroadcast(buf, buf, 1024, ncclFloat32, 0, comm, nullptr));
  if (argc > 2) std::this_thread::sleep_for(std::chrono::seconds(std::atoi(argv[2])));
  CHECK_NCCL(ncclCommDestroy(comm));
  std::printf("nccl_single_rank: %d all-reduce, value %.1f\n", iterations, buf[7]);
  return 0;
}
