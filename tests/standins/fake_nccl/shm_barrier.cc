#include "shm_barrier.h"

#include "futex.h"

namespace fake_nccl {

bool ArriveAndWait(ShmBarrier& barrier, uint32_t parties, uint64_t deadline_ns) {
  // Read the generation before arriving: once we have arrived, the last rank may bump it.
  const uint32_t generation = barrier.generation.load(std::memory_order_acquire);
  if (barrier.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == parties) {
    // Reset before releasing the others, so a rank that races into the next use of the barrier
    // counts from zero.
    barrier.arrived.store(0, std::memory_order_relaxed);
    barrier.generation.fetch_add(1, std::memory_order_release);
    FutexWakeAll(barrier.generation);
    return true;
  }
  while (barrier.generation.load(std::memory_order_acquire) == generation) {
    if (!FutexWaitUntil(barrier.generation, generation, deadline_ns)) return false;
  }
  return true;
}

}  // namespace fake_nccl
