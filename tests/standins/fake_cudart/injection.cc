#include "injection.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "activity_hooks.h"

namespace fake_cudart {
namespace {

// What the real driver (580.159, checked on an H200 machine) does: a library
// that cannot be loaded, lacks InitializeInjection, or returns 0 from it
// changes nothing for the application; cuInit succeeds. The driver is silent
// about it; the stand-in prints one line so a failing test says why.
void LoadInjection() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') return;
  void* library = dlopen(path, RTLD_NOW);
  if (library == nullptr) {
    std::fprintf(stderr, "fake libcudart: CUDA_INJECTION64_PATH: %s; continuing without it\n",
                 dlerror());
    return;
  }
  using Initialize = int (*)();
  const auto initialize = reinterpret_cast<Initialize>(dlsym(library, "InitializeInjection"));
  if (initialize == nullptr) {
    std::fprintf(stderr,
                 "fake libcudart: CUDA_INJECTION64_PATH: %s has no InitializeInjection; "
                 "continuing without it\n",
                 path);
    return;
  }
  initialize();
}

// As the real runtime does, initialising CUDA loads the driver, libcuda.so.1: here the fake
// driver (fake_cuda/), found on the library path; without one the runtime works on, and
// what needs the driver (vprof's collective fingerprints) finds none loaded.
void LoadDriver() { dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL); }

std::once_flag g_initialized;
// The injected library may itself call into CUDA from InitializeInjection;
// those calls must not wait for the initialisation they are part of.
thread_local bool t_initializing = false;

}  // namespace

void InitializeOnce() {
  if (t_initializing) return;
  std::call_once(g_initialized, [] {
    t_initializing = true;
    LoadDriver();
    LoadInjection();
    // Still initialising: what the profiler does in the callback (create a stream, launch)
    // must not wait for this initialisation.
    ReportContextCreated();
    t_initializing = false;
  });
}

}  // namespace fake_cudart
