#include "timeline_fixture.h"

#include <cstdint>

#include "steps/step_trace.h"

namespace vprof::reporter::testing {

void WriteTimelineFixture(const std::string& directory) {
  for (int32_t rank = 0; rank < 2; ++rank) {
    StepTrace trace("node1", 100 + static_cast<uint32_t>(rank), rank);
    for (int64_t k = 0; k < kTimelineFixtureSteps; ++k) {
      const int64_t o = 1000 * k + 5 * rank;
      trace.Range("step", o, o + 400);
      trace.Range("forward", o + 5, o + 100, 1);
      trace.Kernel(kGemmKernel, 7, o + 10, o + 50, o + 150);
      trace.Kernel(kAllReduceKernel, 13, o + 20, o + 150, o + 200,
                   static_cast<uint64_t>(10 * k + 1), 1 << 20);
      trace.Memcpy(9, o + 30, o + 200, o + 210);
      trace.Kernel(kGemmKernel, 7, o + 40, o + 380, o + 1020);
      // vprof's own kernel, on a stream of its own: no span, no lane.
      if (k == 1) trace.Kernel("vprof_calibrate", 21, o + 60, o + 250, o + 260);
      trace.FlushNvtx();
      trace.FlushGpu();
      trace.FlushNccl();
    }
    trace.WriteTo(directory + "/rank" + std::to_string(rank) + ".vtrace");
  }
}

}  // namespace vprof::reporter::testing
