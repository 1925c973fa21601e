// Waiting on a 32-bit word in shared memory, across processes, with a deadline. Every wait in
// the fake NCCL has a deadline so that a missing rank turns into an error instead of a hang.
#pragma once

#include <atomic>
#include <cstdint>

namespace fake_nccl {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "futex words must be plain lock-free 32-bit atomics");

// Blocks while *word == expected. Returns false if deadline_ns (CLOCK_MONOTONIC) passed first;
// returns true when the value differs or after a wake-up (callers re-check their condition).
bool FutexWaitUntil(std::atomic<uint32_t>& word, uint32_t expected, uint64_t deadline_ns);

void FutexWakeAll(std::atomic<uint32_t>& word);

}  // namespace fake_nccl
