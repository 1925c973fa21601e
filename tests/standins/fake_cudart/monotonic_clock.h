// CLOCK_MONOTONIC helpers shared by the fake CUDA runtime, the fake NCCL and the simulated
// training program. vprof timestamps with CLOCK_MONOTONIC too, so every time the stand-ins
// report can be compared with what vprof measures.
#pragma once

#include <sys/prctl.h>
#include <time.h>

#include <cerrno>
#include <cstdint>

namespace standins {

inline constexpr uint64_t kNsPerSecond = 1'000'000'000;

inline uint64_t MonotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * kNsPerSecond + static_cast<uint64_t>(now.tv_nsec);
}

// Sleeps to an absolute instant, so time already spent before the call (scheduling, copying)
// shortens the sleep instead of adding to it. The calling thread's timer slack is set to 1 ns
// on first use: Linux's default of 50 us would otherwise make every simulated duration up to
// 50 us too long.
inline void SleepUntilNs(uint64_t deadline_ns) {
  thread_local const bool precise_timers = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
  (void)precise_timers;
  const timespec deadline{static_cast<time_t>(deadline_ns / kNsPerSecond),
                          static_cast<long>(deadline_ns % kNsPerSecond)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
  }
}

}  // namespace standins
