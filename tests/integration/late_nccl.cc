// A one-rank NCCL program that loads NCCL only after a delay, as Python does on `import torch`
// (libnccl comes with libtorch_cuda, long after vprof started): it links no NCCL, opens
// libnccl.so.2 into the global scope and calls it by name from there, where the preloaded
// wrappers come first, as libtorch_cuda's references to NCCL bind.
//   late_nccl DELAY_MS [ITERATIONS]
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

template <typename Fn>
Fn Find(const char* name) {
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
  if (fn == nullptr) std::fprintf(stderr, "late_nccl: no %s\n", name);
  return fn;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: late_nccl DELAY_MS [ITERATIONS]\n");
    return 2;
  }
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 3;
  std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(argv[1])));
  if (dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    std::fprintf(stderr, "late_nccl: %s\n", dlerror());
    return 1;
  }
  const auto get_unique_id = Find<decltype(&ncclGetUniqueId)>("ncclGetUniqueId");
  const auto init_rank = Find<decltype(&ncclCommInitRank)>("ncclCommInitRank");
  const auto all_reduce = Find<decltype(&ncclAllReduce)>("ncclAllReduce");
  const auto destroy = Find<decltype(&ncclCommDestroy)>("ncclCommDestroy");
  if (!get_unique_id || !init_rank || !all_reduce || !destroy) return 1;
  ncclUniqueId id;
  ncclComm_t comm;
  float* buf = nullptr;
  if (get_unique_id(&id) != ncclSuccess || init_rank(&comm, 1, id, 0) != ncclSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&buf), 1024 * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "late_nccl: set-up failed\n");
    return 1;
  }
  for (int i = 0; i < 1024; ++i) buf[i] = 0.5f * static_cast<float>(i);  // host memory here
  for (int i = 0; i < iterations; ++i) {
    if (all_reduce(buf, buf, 1024, ncclFloat32, ncclSum, comm, nullptr) != ncclSuccess) return 1;
  }
  if (cudaDeviceSynchronize() != cudaSuccess || destroy(comm) != ncclSuccess) return 1;
  std::printf("late_nccl: %d all-reduce\n", iterations);
  return 0;
}
