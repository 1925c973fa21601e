// Runs one collective call. By default host-blocking (unlike real NCCL, which returns once the
// work is queued on the stream):
//   1. waits for all work queued before it on its stream,
//   2. stamps its arrival and waits for every rank,
//   3. moves the data,
//   4. sleeps until last_arrival + TimingModel::SimulatedNs,
// so every rank returns at about the same instant, the simulated time after the last arrival.
// With FAKE_NCCL_KERNELS=1 steps 2-4 are the body of a kernel queued on the stream (step 1 is
// then the stream's own order) and the call returns at once: the kernel's record spans the wait
// for the other ranks and the transfer, as a real NCCL kernel's does. A wait that times out
// there fails the communicator (ncclCommGetAsyncError) and its later calls.
#pragma once

#include "operation.h"

namespace fake_nccl {

ncclResult_t RunCollective(const Operation& op);

}  // namespace fake_nccl
