// A data-parallel loop for the drift audit's tests, under sim_launch (RANK, WORLD_SIZE,
// VPROF_SIM_RDZV): each step every rank computes gradients from the weights and its own data
// (deterministic, fractional, so that the order of a floating-point sum shows in the result),
// all-reduces them, and updates the weights from the sum; then an all-gather of one value per
// rank. What a run changes, the audit must find:
//   drift_ranks STEPS [--perturb-rank R --perturb-step S] [--bf16]
//   --perturb-rank/--perturb-step: rank R adds one ulp to one gradient at step S (upstream drift)
//   --bf16: the gradients are all-reduced as bfloat16 (a representation change)
// NCCL_ALGO=TREE makes the fake NCCL sum the ranks in another order (reduction drift).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "check_nccl.h"
#include "rendezvous.h"

namespace {

constexpr size_t kElems = 4099;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoi(v) : fallback;
}

// float -> bfloat16 by truncation, and back.
uint16_t ToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}
float FromBf16(uint16_t h) {
  const uint32_t bits = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: drift_ranks STEPS [--perturb-rank R --perturb-step S] [--bf16]\n");
    return 2;
  }
  const int steps = std::atoi(argv[1]);
  int perturb_rank = -1, perturb_step = -1;
  bool bf16 = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--perturb-rank" && i + 1 < argc) {
      perturb_rank = std::atoi(argv[++i]);
    } else if (a == "--perturb-step" && i + 1 < argc) {
      perturb_step = std::atoi(argv[++i]);
    } else if (a == "--bf16") {
      bf16 = true;
    } else {
      std::fprintf(stderr, "drift_ranks: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const int rank = EnvInt("RANK", 0), nranks = EnvInt("WORLD_SIZE", 1);
  ncclUniqueId id{};
  std::string error;
  const char* rdzv = std::getenv("VPROF_SIM_RDZV");
  if (rdzv == nullptr || !sim::ShareUniqueId(rdzv, rank, &id, &error)) {
    std::fprintf(stderr, "drift_ranks: rank %d: no rendezvous: %s\n", rank, error.c_str());
    return 1;
  }
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  float *weights, *grads, *gathered, *mine;
  uint16_t* half;
  if (cudaStreamCreate(&stream) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&weights), kElems * sizeof(float)) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&grads), kElems * sizeof(float)) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&half), kElems * sizeof(uint16_t)) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&gathered), nranks * sizeof(float)) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&mine), sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "drift_ranks: CUDA set-up failed\n");
    return 1;
  }
  // The stand-in's device memory is host memory.
  for (size_t i = 0; i < kElems; ++i) weights[i] = 0.001f * static_cast<float>(i % 97);
  for (int step = 0; step < steps; ++step) {
    for (size_t i = 0; i < kElems; ++i) {
      grads[i] = std::sin(weights[i] * static_cast<float>(rank + 1) + 0.1f * step) / 3.0f;
    }
    if (rank == perturb_rank && step == perturb_step) {
      grads[kElems / 2] = std::nextafter(grads[kElems / 2], 1.0f);
    }
    if (bf16) {
      for (size_t i = 0; i < kElems; ++i) half[i] = ToBf16(grads[i]);
      CHECK_NCCL(ncclAllReduce(half, half, kElems, ncclBfloat16, ncclSum, comm, stream));
    } else {
      CHECK_NCCL(ncclAllReduce(grads, grads, kElems, ncclFloat32, ncclSum, comm, stream));
    }
    if (cudaStreamSynchronize(stream) != cudaSuccess) return 1;
    for (size_t i = 0; i < kElems; ++i) {
      weights[i] -= 0.01f * (bf16 ? FromBf16(half[i]) : grads[i]);
    }
    *mine = weights[static_cast<size_t>(rank)];
    CHECK_NCCL(ncclAllGather(mine, gathered, 1, ncclFloat32, comm, stream));
    if (cudaStreamSynchronize(stream) != cudaSuccess) return 1;
  }
  CHECK_NCCL(ncclCommDestroy(comm));
  std::printf("drift_ranks: rank %d, %d steps\n", rank, steps);
  return 0;
}
