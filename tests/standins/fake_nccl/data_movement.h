// Moves a collective's data between the ranks through the communicator's collective slots.
// Every rank calls it once all ranks have arrived.
//
// Messages larger than a slot go in rounds. Round i uses half i % 2 of every slot, so a rank
// may fill its slot for round i+1 while slower ranks still read round i: rewriting a half
// happens only after the barrier of the round in between, which every rank reaches after its
// last read of that half. The arrival barrier of the next collective protects the last rounds.
#pragma once

#include "comm.h"
#include "operation.h"

namespace fake_nccl {

ncclResult_t MoveCollectiveData(ncclComm& comm, const Operation& op);

}  // namespace fake_nccl
