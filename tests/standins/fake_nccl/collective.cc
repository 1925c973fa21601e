#include "collective.h"

#include <algorithm>
#include <string>

#include "comm.h"
#include "data_movement.h"
#include "errors.h"
#include "fake_cudart.h"
#include "monotonic_clock.h"

namespace fake_nccl {
namespace {

// Steps 2-4 of collective.h, on whichever thread reaches the collective in stream order.
ncclResult_t Communicate(const Operation& op) {
  ncclComm& comm = *op.comm;
  const uint64_t arrival_ns = standins::MonotonicNs();
  const uint64_t parity = comm.collectives_started++ % 2;
  comm.region->rank_state(comm.rank).arrival_ns[parity].store(arrival_ns,
                                                              std::memory_order_relaxed);
  if (const ncclResult_t result = Barrier(comm, OpName(op.kind))) return result;
  uint64_t last_arrival_ns = 0;
  for (int rank = 0; rank < comm.nranks; ++rank) {
    last_arrival_ns =
        std::max(last_arrival_ns,
                 comm.region->rank_state(rank).arrival_ns[parity].load(std::memory_order_relaxed));
  }
  if (const ncclResult_t result = MoveCollectiveData(comm, op)) return result;
  standins::SleepUntilNs(
      last_arrival_ns + comm.timing.SimulatedNs(op.kind, op.count, TypeSize(op.type), comm.nranks));
  return ncclSuccess;
}

}  // namespace

ncclResult_t RunCollective(const Operation& op) {
  if (op.comm->timing.collectives_on_stream) {
    // A timeout inside has already failed the communicator (Barrier sets async_error), and a
    // kernel queued after that does nothing, as the calls made after it would.
    const cudaError_t queued = fake_cudart::EnqueueKernel(op.stream, KernelName(op.kind), [op] {
      if (op.comm->async_error == ncclSuccess) Communicate(op);
    });
    if (queued != cudaSuccess) {
      return Fail(ncclUnhandledCudaError, std::string(OpName(op.kind)) + ": invalid stream");
    }
    return ncclSuccess;
  }
  if (fake_cudart::SynchronizeStream(op.stream) != cudaSuccess) {
    return Fail(ncclUnhandledCudaError, std::string(OpName(op.kind)) + ": invalid stream");
  }
  return Communicate(op);
}

}  // namespace fake_nccl
