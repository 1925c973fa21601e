// Starts THREADS threads at once (1,400 by default), each making one CUDA call
// and one NCCL call (an empty group: ncclGroupStart, ncclGroupEnd), all alive
// until every one has made its calls; prints "many_threads: N threads, ok".
// Small stacks, so that the program itself fits a tight `ulimit -v`.
//   many_threads [THREADS]
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

pthread_barrier_t g_all_called;
std::atomic<int> g_failures{0};

void* Work(void*) {
  if (cudaSetDevice(0) != cudaSuccess) g_failures.fetch_add(1);
  if (ncclGroupStart() != ncclSuccess || ncclGroupEnd() != ncclSuccess) g_failures.fetch_add(1);
  pthread_barrier_wait(&g_all_called);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1400;
  pthread_barrier_init(&g_all_called, nullptr, static_cast<unsigned>(threads));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  std::vector<pthread_t> started(static_cast<size_t>(threads));
  for (pthread_t& thread : started) {
    if (pthread_create(&thread, &attr, Work, nullptr) != 0) {
      std::fprintf(stderr, "many_threads: cannot start a thread\n");
      return 1;
    }
  }
  for (pthread_t thread : started) pthread_join(thread, nullptr);
  if (g_failures.load() != 0) {
    std::fprintf(stderr, "many_threads: %d calls failed\n", g_failures.load());
    return 1;
  }
  std::printf("many_threads: %d threads, ok\n", threads);
  return 0;
}
