// A small multi-rank NCCL program for sim_launch (RANK, WORLD_SIZE, VPROF_SIM_RDZV): one
// communicator named "ranks-world", N all-reduces, an all-gather, a broadcast, a
// reduce-scatter and a ring of send/receive in one group, each result checked.
//
// Built twice from this file. nccl_ranks links libnccl; nccl_ranks_dlsym (NCCL_RANKS_DLSYM)
// links no NCCL at all and calls it through dlopen(RTLD_LOCAL) + dlsym on that handle, the way
// vLLM's PyNccl does, so no symbol a preloaded library defines is ever called.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Nccl {
  decltype(&ncclGetUniqueId) get_unique_id;
  decltype(&ncclCommInitRankConfig) init_rank_config;
  decltype(&ncclCommDestroy) destroy;
  decltype(&ncclAllReduce) all_reduce;
  decltype(&ncclAllGather) all_gather;
  decltype(&ncclBroadcast) broadcast;
  decltype(&ncclReduceScatter) reduce_scatter;
  decltype(&ncclSend) send;
  decltype(&ncclRecv) recv;
  decltype(&ncclGroupStart) group_start;
  decltype(&ncclGroupEnd) group_end;
  decltype(&ncclGetErrorString) error_string;
};

#ifdef NCCL_RANKS_DLSYM
template <typename Fn>
bool Find(void* library, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(library, name));
  if (*out == nullptr) std::fprintf(stderr, "nccl_ranks: no %s in libnccl.so.2\n", name);
  return *out != nullptr;
}

bool Load(Nccl* n) {
  void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "nccl_ranks: %s\n", dlerror());
    return false;
  }
  return Find(library, "ncclGetUniqueId", &n->get_unique_id) &&
         Find(library, "ncclCommInitRankConfig", &n->init_rank_config) &&
         Find(library, "ncclCommDestroy", &n->destroy) &&
         Find(library, "ncclAllReduce", &n->all_reduce) &&
         Find(library, "ncclAllGather", &n->all_gather) &&
         Find(library, "ncclBroadcast", &n->broadcast) &&
         Find(library, "ncclReduceScatter", &n->reduce_scatter) &&
         Find(library, "ncclSend", &n->send) && Find(library, "ncclRecv", &n->recv) &&
         Find(library, "ncclGroupStart", &n->group_start) &&
         Find(library, "ncclGroupEnd", &n->group_end) &&
         Find(library, "ncclGetErrorString", &n->error_string);
}
#else
bool Load(Nccl* n) {
  *n = {ncclGetUniqueId, ncclCommInitRankConfig, ncclCommDestroy,   ncclAllReduce,
        ncclAllGather,   ncclBroadcast,          ncclReduceScatter, ncclSend,
        ncclRecv,        ncclGroupStart,         ncclGroupEnd,      ncclGetErrorString};
  return true;
}
#endif

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoi(v) : fallback;
}

// Rank 0 publishes the id in the rendezvous folder; the others wait for it.
bool ShareId(const Nccl& n, int rank, ncclUniqueId* id) {
  const char* dir = std::getenv("VPROF_SIM_RDZV");
  if (dir == nullptr) return false;
  const std::string path = std::string(dir) + "/nccl_ranks.id";
  if (rank == 0) {
    if (n.get_unique_id(id) != ncclSuccess) return false;
    const std::string tmp = path + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(id->internal, sizeof id->internal);
    return std::rename(tmp.c_str(), path.c_str()) == 0;
  }
  for (int i = 0; i < 30000; ++i) {
    std::ifstream in(path, std::ios::binary);
    if (in.read(id->internal, sizeof id->internal)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace

#define CHECK_NCCL(call)                                                                 \
  do {                                                                                   \
    ncclResult_t r_ = (call);                                                            \
    if (r_ != ncclSuccess) {                                                             \
      std::fprintf(stderr, "nccl_ranks: %s failed: %s\n", #call, nccl.error_string(r_)); \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 3;
  const int rank = EnvInt("RANK", 0), nranks = EnvInt("WORLD_SIZE", 1);
  Nccl nccl{};
  ncclUniqueId id{};
  if (!Load(&nccl) || !ShareId(nccl, rank, &id)) {
    std::fprintf(stderr, "nccl_ranks: rank %d: no NCCL or no rendezvous\n", rank);
    return 1;
  }
  ncclComm_t comm = nullptr;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.commName = "ranks-world";
  CHECK_NCCL(nccl.init_rank_config(&comm, nranks, id, rank, &config));

  // The stand-in's device memory is host memory.
  std::vector<float> sum(1024, static_cast<float>(rank + 1));
  for (int i = 0; i < iterations; ++i) {
    std::vector<float> in(1024, static_cast<float>(rank + 1));
    CHECK_NCCL(nccl.all_reduce(in.data(), sum.data(), 1024, ncclFloat32, ncclSum, comm, nullptr));
  }
  std::vector<float> gathered(256 * nranks);
  std::vector<float> mine(256, static_cast<float>(rank));
  CHECK_NCCL(nccl.all_gather(mine.data(), gathered.data(), 256, ncclFloat32, comm, nullptr));
  std::vector<int32_t> bcast(100, rank == 0 ? 42 : 0);
  CHECK_NCCL(nccl.broadcast(bcast.data(), bcast.data(), 100, ncclInt32, 0, comm, nullptr));
  std::vector<double> scatter_in(64 * nranks, 1.0), scatter_out(64);
  CHECK_NCCL(nccl.reduce_scatter(scatter_in.data(), scatter_out.data(), 64, ncclFloat64, ncclSum,
                                 comm, nullptr));
  std::vector<int8_t> to_next(32, static_cast<int8_t>(rank)), from_prev(32, -1);
  CHECK_NCCL(nccl.group_start());
  CHECK_NCCL(nccl.send(to_next.data(), 32, ncclInt8, (rank + 1) % nranks, comm, nullptr));
  CHECK_NCCL(
      nccl.recv(from_prev.data(), 32, ncclInt8, (rank + nranks - 1) % nranks, comm, nullptr));
  CHECK_NCCL(nccl.group_end());
  CHECK_NCCL(nccl.destroy(comm));

  const float want_sum = static_cast<float>(nranks * (nranks + 1) / 2);
  bool ok = sum[7] == want_sum && bcast[99] == 42 && scatter_out[3] == nranks &&
            from_prev[0] == (rank + nranks - 1) % nranks;
  for (int r = 0; r < nranks; ++r) ok = ok && gathered[256 * r + 5] == static_cast<float>(r);
  if (!ok) {
    std::fprintf(stderr, "nccl_ranks: rank %d: wrong results\n", rank);
    return 1;
  }
  if (rank == 0) std::printf("nccl_ranks: %d ranks, %d all-reduce, ok\n", nranks, iterations);
  return 0;
}
