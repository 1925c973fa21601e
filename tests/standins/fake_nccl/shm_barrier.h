// A reusable barrier for the ranks of one communicator, living in its shared memory.
#pragma once

#include <atomic>
#include <cstdint>

namespace fake_nccl {

struct ShmBarrier {
  std::atomic<uint32_t> arrived{0};
  // Bumped by the last rank to arrive; the futex word the others sleep on.
  std::atomic<uint32_t> generation{0};
};

// Returns false if not every party arrived by deadline_ns. The barrier is unusable afterwards,
// so the caller must treat the communicator as broken.
bool ArriveAndWait(ShmBarrier& barrier, uint32_t parties, uint64_t deadline_ns);

}  // namespace fake_nccl
