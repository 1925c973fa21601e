// The one host clock every vprof timestamp is on.
#pragma once

#include <time.h>

#include <cstdint>

namespace vprof {

// CLOCK_MONOTONIC: shared by every process of a host, never steps, and read
// through the vDSO (no system call). Recorded in the run header as
// CLOCK_DOMAIN_MONOTONIC; periodic ClockSample packets pair it with
// CLOCK_REALTIME so hosts can be aligned later.
inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Asks `ready` until it answers true, sleeping pause_ns between asks; false
// once NowNs() passed deadline_ns first (pause_ns: below a second). For the
// few waits vprof bounds (a lock an exit handler tries, a gate it closes)
// rather than block on.
template <typename Ready>
bool PollUntil(uint64_t deadline_ns, long pause_ns, Ready&& ready) {
  while (!ready()) {
    if (NowNs() > deadline_ns) return false;
    const timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
  }
  return true;
}

}  // namespace vprof
