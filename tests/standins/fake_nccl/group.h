// ncclGroupStart/ncclGroupEnd. Calls made inside a group (per thread, nestable) are deferred
// and run in order at the outermost ncclGroupEnd; consecutive sends and receives on one
// communicator run as one exchange, so the pairs of a group never deadlock each other.
#pragma once

#include "operation.h"

namespace fake_nccl {

// Runs op now, or defers it when a group is open on this thread.
ncclResult_t Submit(const Operation& op);
void StartGroup();
ncclResult_t EndGroup();

}  // namespace fake_nccl
