// ncclUniqueId in the stand-in: the NUL-terminated name of the communicator's shared memory
// file, "vprof-fake-nccl-" followed by 32 random hex digits.
#pragma once

#include <cstdint>
#include <string>

#include "nccl.h"

namespace fake_nccl {

std::string NewRegionName();
// A name every rank computes alike from a parent communicator's name and a count of the
// derivations made from it, for children formed without a collective over the whole parent.
std::string DerivedRegionName(const std::string& parent_name, uint64_t derivation);
ncclUniqueId UniqueIdFor(const std::string& region_name);
// Returns false if the id was not made by the stand-in.
bool RegionNameFromId(const ncclUniqueId& id, std::string* region_name);

}  // namespace fake_nccl
