// A hand-built report for the candidate tests: two ranks, two measured full
// steps of 100 ms each, and every figure chosen so that the expected
// candidates can be worked out by hand (candidate_fixture.cc says how).
#pragma once

#include "reporter/model/report.h"

namespace vprof::reporter::testing {

inline constexpr uint64_t kTpComm = 0xA;
inline constexpr uint64_t kBucketComm = 0xB;
inline constexpr int64_t kMs = 1'000'000;
inline constexpr int64_t kUs = 1'000;

// Phase indexes of the fixture's ranks: {"", "forward", "backward"}.
inline constexpr PhaseIndex kForward = 1;
inline constexpr PhaseIndex kBackward = 2;

struct FixtureSteps {
  uint32_t steps = 2;
  bool end_together = false;
};

// Two ranks, `steps` measured full steps of 100 ms each, their ledgers
// built (candidate_fixture.cc has every figure). Rank 1 ends each step and
// gives its ledger: compute 49 ms (forward 20, backward 29), tensor-parallel
// all-reduces on comm 0xA exposed 28 or 32 ms (30 ms per step) with no wait,
// as rank 1 arrives last at every one, host-bound idle 22 or 18 ms in
// forward (20 ms per step), waiting idle 1 ms. Rank 0 ends 3 ms earlier
// (with `end_together`, with rank 1 after 3 ms more of host-bound idle in
// backward) and its all-reduces last 25 ms, 11 or 9 ms of each a wait for
// rank 1. Rank 0's elementwise kernels: 2000 over the trace at 5 µs mean
// (10 ms), i.e. 1000 kernels and 5 ms per step of 2 steps found.
Report StepsFixture(const FixtureSteps& shape = {});

// StepsFixture without steps: no StepsReport at all.
Report NoStepsFixture();

}  // namespace vprof::reporter::testing
