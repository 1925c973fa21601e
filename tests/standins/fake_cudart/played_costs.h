// Costs the fake runtime plays so that tests can inject them: the host time
// of each cudaMalloc (FAKE_CUDA_MALLOC_US) and the bandwidth copies run at
// (FAKE_CUDA_COPY_GBPS), each read once. Unset or malformed: no cost, and
// copies take as long as moving their bytes on the CPU.
#pragma once

#include <cstdint>

namespace fake_cudart {

// Nanoseconds each cudaMalloc spends before it returns; 0 for none.
uint64_t MallocCostNs();
// The least time a copy of `bytes` takes at the played bandwidth; 0 for none.
uint64_t CopyFloorNs(uint64_t bytes);

}  // namespace fake_cudart
