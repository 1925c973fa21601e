// A process that uses the (fake) CUDA runtime and nothing else: it reads the
// runtime version (which does not initialise CUDA), then makes calls that do.
// Prints its pid and LD_PRELOAD, so a test can find its trace and see that
// no preload reached it.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main() {
  int version = 0;
  cudaRuntimeGetVersion(&version);
  std::printf("runtime version read\n");
  std::fflush(stdout);
  int devices = 0;
  void* memory = nullptr;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || cudaGetDeviceCount(&devices) != cudaSuccess ||
      cudaMalloc(&memory, 4096) != cudaSuccess || cudaFree(memory) != cudaSuccess) {
    std::fprintf(stderr, "cuda_child: a CUDA call failed\n");
    return 1;
  }
  const char* preload = std::getenv("LD_PRELOAD");
  std::printf("pid=%d preload=%s devices=%d\n", static_cast<int>(getpid()),
              preload == nullptr ? "(unset)" : preload, devices);
  return 0;
}
