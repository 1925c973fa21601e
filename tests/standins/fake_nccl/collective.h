// Runs one collective call, host-blocking (unlike real NCCL, which returns once the work is
// queued on the stream):
//   1. waits for all work queued before it on its stream,
//   2. stamps its arrival and waits for every rank,
//   3. moves the data,
//   4. sleeps until last_arrival + TimingModel::SimulatedNs,
// so every rank returns at about the same instant, the simulated time after the last arrival.
#pragma once

#include "operation.h"

namespace fake_nccl {

ncclResult_t RunCollective(const Operation& op);

}  // namespace fake_nccl
