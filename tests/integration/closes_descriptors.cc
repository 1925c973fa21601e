// A program that closes every descriptor above stderr, as daemons and some
// launchers do, then opens a file of its own and writes one line to it,
// while it makes NCCL calls before and after.
//   closes_descriptors FILE
// It sleeps between the steps so that vprof's writer flushes (VPROF_FLUSH_MS
// is short in the test) while vprof's old descriptor number is the file's.
#include <fcntl.h>
#include <nccl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace {

bool all_reduce(ncclComm_t comm, float* buf, int times) {
  for (int i = 0; i < times; ++i) {
    if (ncclAllReduce(buf, buf, 256, ncclFloat32, ncclSum, comm, nullptr) != ncclSuccess) {
      return false;
    }
  }
  return true;
}

void pause_for_flushes() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  ncclUniqueId id;
  ncclComm_t comm;
  if (ncclGetUniqueId(&id) != ncclSuccess || ncclCommInitRank(&comm, 1, id, 0) != ncclSuccess) {
    return 1;
  }
  static float buf[256];
  if (!all_reduce(comm, buf, 3)) return 1;
  pause_for_flushes();
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  int own = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (own < 0 || write(own, "program output\n", 15) != 15) return 1;
  if (!all_reduce(comm, buf, 4)) return 1;
  pause_for_flushes();
  std::printf("closes_descriptors: wrote %s on descriptor %d\n", argv[1], own);
  return 0;
}
