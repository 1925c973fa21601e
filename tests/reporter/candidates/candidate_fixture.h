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

// Rank 1 is the slowest rank of both full steps. On it, tensor-parallel
// communication (comm 0xA) is exposed 28 + 32 ms (30 ms per step) and the GPU
// idles 22 + 18 ms (20 ms per step) waiting for the host; rank 0 exposes
// 50 ms per step on 0xA but is never the slowest, so that figure must not be
// used. Rank 0's elementwise kernels: 2000 over the trace at 5 µs mean
// (10 ms), i.e. 1000 kernels and 5 ms per step of the 2 steps found.
Report StepsFixture();

// StepsFixture without steps: no StepsReport at all.
Report NoStepsFixture();

}  // namespace vprof::reporter::testing
