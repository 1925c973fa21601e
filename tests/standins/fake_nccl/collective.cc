#include "collective.h"

#include <algorithm>
#include <string>

#include "comm.h"
#include "data_movement.h"
#include "errors.h"
#include "fake_cudart.h"
#include "monotonic_clock.h"

namespace fake_nccl {

ncclResult_t RunCollective(const Operation& op) {
  ncclComm& comm = *op.comm;
  if (fake_cudart::SynchronizeStream(op.stream) != cudaSuccess) {
    return Fail(ncclUnhandledCudaError, std::string(OpName(op.kind)) + ": invalid stream");
  }
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

}  // namespace fake_nccl
