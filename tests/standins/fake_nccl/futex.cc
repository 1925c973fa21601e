#include "futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>

#include "monotonic_clock.h"

namespace fake_nccl {
namespace {

// Not FUTEX_PRIVATE_FLAG: the word lives in memory shared between processes.
long Futex(std::atomic<uint32_t>& word, int op, uint32_t value, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), op, value, timeout, nullptr, 0);
}

}  // namespace

bool FutexWaitUntil(std::atomic<uint32_t>& word, uint32_t expected, uint64_t deadline_ns) {
  const uint64_t now_ns = standins::MonotonicNs();
  if (now_ns >= deadline_ns) return word.load(std::memory_order_acquire) != expected;
  const uint64_t left_ns = deadline_ns - now_ns;
  // FUTEX_WAIT takes a relative timeout on CLOCK_MONOTONIC.
  const timespec timeout{static_cast<time_t>(left_ns / standins::kNsPerSecond),
                         static_cast<long>(left_ns % standins::kNsPerSecond)};
  Futex(word, FUTEX_WAIT, expected, &timeout);
  return word.load(std::memory_order_acquire) != expected || standins::MonotonicNs() < deadline_ns;
}

void FutexWakeAll(std::atomic<uint32_t>& word) { Futex(word, FUTEX_WAKE, INT_MAX, nullptr); }

}  // namespace fake_nccl
