// A file system whose writes are slow, as a loaded network file system's
// are: preloaded, each pwrite(2) of a process with SLOW_PWRITE_MS set sleeps
// that long first. Only
// vprof's trace writer calls pwrite in the simulated programs, so the delay
// falls on the trace's writes alone.
//
// Both names are defined here, so the header's renaming of pwrite to
// pwrite64 (meson builds with _FILE_OFFSET_BITS=64) is undone first.
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

namespace {

using PwriteFn = ssize_t (*)(int, const void*, size_t, off64_t);

long DelayMs() {
  static const long ms = [] {
    const char* v = std::getenv("SLOW_PWRITE_MS");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  return ms;
}

ssize_t Slowed(const char* name, int fd, const void* buf, size_t count, off64_t offset) {
  if (const long ms = DelayMs(); ms > 0) {
    timespec delay{ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0) {
    }
  }
  return reinterpret_cast<PwriteFn>(dlsym(RTLD_NEXT, name))(fd, buf, count, offset);
}

}  // namespace

// vprof, built with _FILE_OFFSET_BITS=64, calls pwrite64.
extern "C" __attribute__((visibility("default"))) ssize_t pwrite(int fd, const void* buf,
                                                                 size_t count, off_t offset) {
  return Slowed("pwrite", fd, buf, count, offset);
}

extern "C" __attribute__((visibility("default"))) ssize_t pwrite64(int fd, const void* buf,
                                                                   size_t count, off64_t offset) {
  return Slowed("pwrite64", fd, buf, count, offset);
}
