// Distributes the world communicator's ncclUniqueId through the launcher's rendezvous directory
// (VPROF_SIM_RDZV), the way torchrun ranks share it through their store.
#pragma once

#include <string>

#include "nccl.h"

namespace sim {

// Rank 0 creates the id and publishes it; the other ranks wait for it. Returns false with
// *error set on failure or after a timeout.
bool ShareUniqueId(const std::string& rendezvous_dir, int rank, ncclUniqueId* id,
                   std::string* error);

}  // namespace sim
