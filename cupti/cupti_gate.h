// A gate that calls into libcupti pass, which an exit handler closes before
// libcupti's teardown: a call made during that teardown crashed the process
// on an H200 (bench/RESULTS.md, 2026-12-04 (a36dbc4)).
//
// No lock: a caller may be inside a CUPTI callback, or wait on CUPTI, while
// the handler closes the gate. Sequentially consistent, so that either the
// handler sees a call inside or the call sees the gate closed.
#pragma once

#include <atomic>
#include <cstdint>

#include "interpose/core/clock.h"

namespace vprof {

class CuptiGate {
 public:
  // In scope around a call; open() is false once the gate is closed, and the
  // call is then not to be made.
  class Pass {
   public:
    explicit Pass(CuptiGate& gate) : gate_(gate) { gate_.inside_.fetch_add(1); }
    ~Pass() { gate_.inside_.fetch_sub(1); }
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;
    bool open() const { return !gate_.closed_.load(); }

   private:
    CuptiGate& gate_;
  };

  // Closes the gate and waits until `deadline_ns` (NowNs) for the calls inside
  // to leave. False when one is still inside then.
  bool Close(uint64_t deadline_ns) {
    closed_.store(true);
    return PollUntil(deadline_ns, 50000, [this] { return inside_.load() == 0; });
  }

 private:
  std::atomic<bool> closed_{false};
  std::atomic<uint32_t> inside_{0};
};

}  // namespace vprof
