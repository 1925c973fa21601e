// A dynamic loader whose list walks are slow, as one with thousands of loaded
// objects (a large Python program's) is: preloaded, each dl_iterate_phdr(3)
// made by a thread other than the process's main thread, in a process with
// SLOW_LOADER_MS set, sleeps that long inside its first callback, where glibc
// holds the loader's lock. In the simulated programs only vprof's writer
// thread walks the list there, so a fork from the main thread meets the lock
// held for that long.
#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

namespace {

using Callback = int (*)(dl_phdr_info*, size_t, void*);
using IterateFn = int (*)(Callback, void*);

long DelayMs() {
  static const long ms = [] {
    const char* v = std::getenv("SLOW_LOADER_MS");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  return ms;
}

struct Slowed {
  Callback callback;
  void* data;
  bool slept;
};

int SleepOnce(dl_phdr_info* info, size_t size, void* data) {
  auto* slowed = static_cast<Slowed*>(data);
  if (!slowed->slept) {
    slowed->slept = true;
    const long ms = DelayMs();
    timespec delay{ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0) {
    }
  }
  return slowed->callback(info, size, slowed->data);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int dl_iterate_phdr(Callback callback,
                                                                      void* data) {
  static const auto real = reinterpret_cast<IterateFn>(dlsym(RTLD_NEXT, "dl_iterate_phdr"));
  if (DelayMs() <= 0 || syscall(SYS_gettid) == getpid()) return real(callback, data);
  Slowed slowed{callback, data, false};
  return real(SleepOnce, &slowed);
}
