// Collectives over buffers of known bytes, for the fingerprint test
// (test_fingerprints.py), on a one-rank communicator: byte i of a buffer is
// (i * 131 + 7) mod 256 from where the call's buffer begins. Every call uses
// ncclInt8 with ncclSum, so one rank's output is its input, bit for bit.
//   fingerprint_probe [--capture]   prints one line per call: FUNCTION INPUT_BYTES
// --capture: a fifth all-reduce while the stream captures a CUDA graph.
// --fork: then a forked child makes one all-reduce on a communicator of its own.
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "check_nccl.h"

namespace {

void fill(unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(i * 131 + 7);
}

}  // namespace

int main(int argc, char** argv) {
  ncclUniqueId id;
  CHECK_NCCL(ncclGetUniqueId(&id));
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
  unsigned char* in = nullptr;
  unsigned char* out = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&in), 1 << 20) != cudaSuccess) return 1;
  if (cudaMalloc(reinterpret_cast<void**>(&out), 1 << 20) != cudaSuccess) return 1;
  cudaStream_t stream;
  if (cudaStreamCreate(&stream) != cudaSuccess) return 1;

  // Aligned, a whole number of words.
  fill(in, 4096);
  CHECK_NCCL(ncclAllReduce(in, out, 4096, ncclInt8, ncclSum, comm, stream));
  std::printf("AllReduce 4096\n");
  // Misaligned and a partial last word: the same bytes from another start.
  fill(in + 3, 1001);
  CHECK_NCCL(ncclAllReduce(in + 3, out + 5, 1001, ncclInt8, ncclSum, comm, stream));
  std::printf("AllReduce 1001\n");
  // Inside a group: launched around the group's end.
  fill(in, 777);
  CHECK_NCCL(ncclGroupStart());
  CHECK_NCCL(ncclAllGather(in, out, 777, ncclInt8, comm, stream));
  CHECK_NCCL(ncclGroupEnd());
  std::printf("AllGather 777\n");
  fill(in, 64);
  CHECK_NCCL(ncclBroadcast(in, out, 64, ncclInt8, 0, comm, stream));
  std::printf("Broadcast 64\n");
  if (argc > 1 && std::string(argv[1]) == "--capture") {
    cudaGraph_t graph;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess) return 1;
    CHECK_NCCL(ncclAllReduce(in, out, 64, ncclInt8, ncclSum, comm, stream));
    if (cudaStreamEndCapture(stream, &graph) != cudaSuccess) return 1;
    std::printf("AllReduce 64, captured\n");
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess) return 1;
  CHECK_NCCL(ncclCommDestroy(comm));
  if (argc > 1 && std::string(argv[1]) == "--fork") {
    const pid_t child = fork();
    if (child == 0) {
      ncclUniqueId child_id;
      ncclComm_t child_comm;
      unsigned char* buffer = nullptr;
      CHECK_NCCL(ncclGetUniqueId(&child_id));
      CHECK_NCCL(ncclCommInitRank(&child_comm, 1, child_id, 0));
      if (cudaMalloc(reinterpret_cast<void**>(&buffer), 64) != cudaSuccess) return 1;
      fill(buffer, 64);
      CHECK_NCCL(ncclAllReduce(buffer, buffer, 64, ncclInt8, ncclSum, child_comm, nullptr));
      CHECK_NCCL(ncclCommDestroy(child_comm));
      return 0;
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 1;
    std::printf("AllReduce 64, in a forked child\n");
  }
  return 0;
}
