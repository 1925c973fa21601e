// Runs a batch of sends and receives on one communicator as one exchange: all of them make
// progress together, so a group such as "send to the right, receive from the left" on every rank
// completes. Like collectives it is host-blocking: it returns once every transfer is done and
// then sleeps until, for the slowest transfer, max(own arrival, peer arrival) +
// TimingModel::SimulatedNs.
#pragma once

#include <span>

#include "operation.h"

namespace fake_nccl {

ncclResult_t RunPointToPoint(std::span<const Operation> ops);

}  // namespace fake_nccl
