// An injection library that only says when the driver called it, to check
// that the fake runtime loads CUDA_INJECTION64_PATH once, at initialisation.
#include <cstdio>

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  std::printf("InitializeInjection called\n");
  std::fflush(stdout);
  return 1;
}
