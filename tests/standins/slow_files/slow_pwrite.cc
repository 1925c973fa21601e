// A file system whose writes are slow, as a loaded network file system's
// are: preloaded, each pwritev(2) of a process with SLOW_PWRITE_MS set
// sleeps that long first. Only vprof's trace writer calls pwritev in the
// simulated programs, so the delay falls on the trace's writes alone.
//
// Both names are defined here, so the header's renaming of pwritev to
// pwritev64 (meson builds with _FILE_OFFSET_BITS=64) is undone first.
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <sys/uio.h>

#include <cstdlib>
#include <ctime>

namespace {

using PwritevFn = ssize_t (*)(int, const iovec*, int, off64_t);

long DelayMs() {
  static const long ms = [] {
    const char* v = std::getenv("SLOW_PWRITE_MS");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  return ms;
}

ssize_t Slowed(const char* name, int fd, const iovec* iov, int count, off64_t offset) {
  if (const long ms = DelayMs(); ms > 0) {
    timespec delay{ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0) {
    }
  }
  return reinterpret_cast<PwritevFn>(dlsym(RTLD_NEXT, name))(fd, iov, count, offset);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) ssize_t pwritev(int fd, const iovec* iov,
                                                                  int count, off_t offset) {
  return Slowed("pwritev", fd, iov, count, offset);
}

// vprof, built with _FILE_OFFSET_BITS=64, calls pwritev64.
extern "C" __attribute__((visibility("default"))) ssize_t pwritev64(int fd, const iovec* iov,
                                                                    int count, off64_t offset) {
  return Slowed("pwritev64", fd, iov, count, offset);
}
