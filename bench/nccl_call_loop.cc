// Times a loop of cheap NCCL calls and prints nanoseconds per call. Run it
// bare and under LD_PRELOAD=libvprof.so (bench/nccl_overhead.py does, side by
// side); the difference is what vprof adds per wrapped call.
//
// Calls: an empty ncclGroupStart/ncclGroupEnd pair (two wrapped calls that do
// almost nothing in NCCL) and a 1-element all-reduce on a 1-rank communicator.
#include <nccl.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 200000;
  ncclUniqueId id;
  ncclComm_t comm;
  if (ncclGetUniqueId(&id) != ncclSuccess || ncclCommInitRank(&comm, 1, id, 0) != ncclSuccess) {
    std::fprintf(stderr, "nccl_call_loop: cannot create a communicator\n");
    return 1;
  }
  float x = 1.0f;
  auto group_pairs = [&] {
    for (long i = 0; i < n; ++i) {
      ncclGroupStart();
      ncclGroupEnd();
    }
  };
  auto all_reduces = [&] {
    for (long i = 0; i < n; ++i) ncclAllReduce(&x, &x, 1, ncclFloat32, ncclSum, comm, nullptr);
  };
  // Untimed first pass: one-time costs (symbol resolution, the first touch of
  // a thread's buffer) are not per-call costs.
  group_pairs();
  all_reduces();
  double t0 = now_s();
  group_pairs();
  double t1 = now_s();
  all_reduces();
  double t2 = now_s();
  ncclCommDestroy(comm);
  std::printf("group_pair_ns_per_call %.1f\nallreduce_ns_per_call %.1f\n",
              (t1 - t0) * 1e9 / (2.0 * n), (t2 - t1) * 1e9 / n);
  return 0;
}
