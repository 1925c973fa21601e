// A stand-in for a Ray worker. Ray starts every worker under a command line
// that names no role ("python .../default_worker.py --node-ip-address ...")
// and renames it after the actor it hosts ("ray::MegatronTrainRayActor.train")
// through setproctitle, which writes the title over the argv area, NULs over
// the rest of it, and sets the thread's name with prctl(PR_SET_NAME). This
// program does the same, launches one kernel and runs one all-reduce over the
// stand-ins. Set through the environment:
//   RETITLE_TO              the title (unset: the command line stays)
//   RETITLE_KERNEL          "optimizer": the kernel is multi_tensor_apply_kernel
//                           (an optimizer's), else worker_matmul_kernel
//   RETITLE_LOAD            libraries to dlopen, ':'-separated (as the
//                           Python import of an extension module does)
//   RETITLE_KILL_AFTER_MS   rename and load only after 300 ms (past the
//                           writer's first reading of the title), then
//                           SIGKILL itself this many ms after the start
//                           instead of exiting
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>
#include <signal.h>
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "check_nccl.h"

// Stand-in kernels: the fake runtime names a kernel by its symbol (dladdr), so they are exported
// and keep their own addresses (noipa). The first parameter is the duration in ns.
extern "C" {
__attribute__((visibility("default"), noipa)) void worker_matmul_kernel(uint64_t) {}
__attribute__((visibility("default"), noipa)) void multi_tensor_apply_kernel(uint64_t) {}
}

namespace {

// setproctitle's way on Linux: the argv strings are one contiguous area.
bool set_title(int argc, char** argv, const std::string& title) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] != argv[i - 1] + std::strlen(argv[i - 1]) + 1) return false;
  }
  char* const begin = argv[0];
  char* const end = argv[argc - 1] + std::strlen(argv[argc - 1]) + 1;
  const size_t area = static_cast<size_t>(end - begin);
  if (title.size() + 1 > area) return false;
  std::memset(begin, 0, area);
  std::memcpy(begin, title.data(), title.size());
  // The kernel keeps 15 bytes of a thread's name.
  return prctl(PR_SET_NAME, title.substr(0, 15).c_str()) == 0;
}

// Each ':'-separated path, kept loaded.
bool load_all(const std::string& paths) {
  size_t start = 0;
  while (start <= paths.size()) {
    const size_t end = std::min(paths.find(':', start), paths.size());
    const std::string path = paths.substr(start, end - start);
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      std::fprintf(stderr, "retitle_worker: %s\n", dlerror());
      return false;
    }
    start = end + 1;
  }
  return true;
}

void sleep_ms(long ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

int main(int argc, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  const char* title = std::getenv("RETITLE_TO");
  const char* kernel_choice = std::getenv("RETITLE_KERNEL");
  const char* kill_after = std::getenv("RETITLE_KILL_AFTER_MS");
  const char* load = std::getenv("RETITLE_LOAD");

  void (*kernel)(uint64_t) = kernel_choice && std::string(kernel_choice) == "optimizer"
                                 ? multi_tensor_apply_kernel
                                 : worker_matmul_kernel;
  uint64_t duration_ns = 20000;
  void* args[] = {&duration_ns};
  if (cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), args, 0, nullptr) !=
          cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "retitle_worker: the kernel failed\n");
    return 1;
  }
  ncclUniqueId id;
  CHECK_NCCL(ncclGetUniqueId(&id));
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
  float* buf = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&buf), 256 * sizeof(float)) != cudaSuccess) return 1;
  for (int i = 0; i < 256; ++i) buf[i] = 1.0f;  // the stand-in's memory is host memory
  CHECK_NCCL(ncclAllReduce(buf, buf, 256, ncclFloat32, ncclSum, comm, nullptr));
  CHECK_NCCL(ncclCommDestroy(comm));

  if (kill_after) sleep_ms(300);
  if (load && !load_all(load)) return 1;
  if (title && !set_title(argc, argv, title)) {
    std::fprintf(stderr, "retitle_worker: the title does not fit the argv area\n");
    return 1;
  }
  if (!kill_after) return 0;
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  sleep_ms(std::max<long>(0, std::atol(kill_after) - elapsed.count()));
  raise(SIGKILL);
  return 1;
}
