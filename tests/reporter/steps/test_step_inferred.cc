// Without NVTX step ranges, steps end with bursts of optimizer kernels; the
// report says so, and says why there are no steps when there are neither.
// Times in µs after the helper's origin; the report gives ns.
#include <catch2/catch.hpp>

#include "reporter/gpu/kernel_class.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "step_trace.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

std::optional<StepsReport> StepsOf(const std::string& directory, uint32_t warmup) {
  return StepReportOf(directory, warmup).steps;
}

}  // namespace

TEST_CASE("optimizer kernel classes") {
  CHECK(KernelClassOf(kAdamKernel) == kOptimizerKernelClass);
  CHECK(KernelClassOf("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
                      "FusedAdamMathFunctor<float, 4>>") == kOptimizerKernelClass);
  CHECK(KernelClassOf("fused_sgd_kernel") == kOptimizerKernelClass);
  // "lamb" is in every lambda, "adam" in hadamard: neither is an optimizer.
  CHECK(KernelClassOf("vectorized_elementwise_kernel<4, {lambda(float)#1}>") == "elementwise");
  CHECK(KernelClassOf("fast_hadamard_transform_kernel") == kOtherKernelClass);
}

TEST_CASE("steps inferred from optimizer bursts when no NVTX range names a step") {
  // Step k at o = k*1000, no NVTX:
  //   17 kernels "fwd_kernel" s7, launched at o+10+j, running [o+100+10j, o+110+10j] (j = 0..16)
  //   AR nccl s13, launched at o+30, [o+270, o+330]
  //   two Adam kernels s7, launched at o+40, o+41, [o+340, o+350], [o+350, o+360]
  // A burst ends after 16 other kernels: step k's burst closes at the 17th
  // kernel of step k+1, and the last one at the end of the trace. Step 0's
  // window starts at its first kernel (100) and ends at 360; step k > 0 runs
  // from the previous end (o-640) to o+360, 1000 µs:
  //   [o-640, o+100) idle 740, ended by fwd 0 launched at o+10 > o-640: host-bound
  //   [o+100, o+270) compute 170
  //   [o+270, o+330) AR alone: exposed 60; Adam launched at o+40 < o+330: blocking
  //   [o+330, o+340) idle 10, Adam launched at o+40: waiting
  //   [o+340, o+360) compute 20
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  for (int64_t o = 0; o < 3000; o += 1000) {
    for (int64_t j = 0; j < 17; ++j) {
      trace.Kernel("fwd_kernel", 7, o + 10 + j, o + 100 + 10 * j, o + 110 + 10 * j);
    }
    trace.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 13, o + 30, o + 270, o + 330);
    trace.Kernel(kAdamKernel, 7, o + 40, o + 340, o + 350);
    trace.Kernel(kAdamKernel, 7, o + 41, o + 350, o + 360);
    trace.FlushGpu();
  }
  trace.WriteTo(dir.File("rank0.vtrace"));

  const std::optional<StepsReport> steps = StepsOf(dir.path(), 1);
  REQUIRE(steps);
  CHECK(steps->source == StepSource::kOptimizerKernels);
  CHECK(steps->pattern.find("optimizer") != std::string::npos);
  CHECK(steps->steps_found == 3);
  CHECK(steps->window == "steps 2-3 of 3 (step 1, warmup, left out)");
  const RankStepsReport& rank = steps->ranks.at(0);
  REQUIRE(rank.steps.size() == 2);
  CHECK(rank.steps[0].start_ns == kStepBase + 360 * kStepUs);
  CHECK(rank.steps[0].end_ns == kStepBase + 1360 * kStepUs);
  const SegmentTimes& one = rank.steps[0].times;
  CHECK(one.window_ns == 1000 * kStepUs);
  CHECK(one.compute_ns == 190 * kStepUs);
  CHECK(one.exposed_comm_ns == 60 * kStepUs);
  CHECK(one.exposed_comm_blocking_ns == 60 * kStepUs);
  CHECK(one.idle_host_bound_ns == 740 * kStepUs);
  CHECK(one.idle_waiting_ns == 10 * kStepUs);
  // The AR was launched before the burst: the one bucket of each step.
  CHECK(rank.steps[1].buckets.size() == 1);
  CHECK(rank.bucket_plan_stable == true);
  CHECK(steps->median_step_ns == 1000 * kStepUs);
}

TEST_CASE("kernels without launch records: no steps, and the problem says why") {
  // The same NVTX steps and kernels, with and without their launch records.
  for (const bool launches : {true, false}) {
    ScratchDir dir;
    StepTrace trace("node1", 100, 0);
    if (!launches) trace.RecordsNoApiCalls();
    for (int64_t step = 0; step < 3; ++step) {
      const int64_t at = step * 1000;
      trace.Range("train_step", at, at + 900);
      trace.Kernel("fwd_kernel", 7, at + 10, at + 20, at + 500);
    }
    trace.WriteTo(dir.File("rank0.vtrace"));
    const std::optional<StepsReport> steps = StepsOf(dir.path(), 0);
    REQUIRE(steps);
    INFO("launch records: " << launches << "; problem: " << steps->problem);
    if (launches) {
      // With them, each step holds its kernel: 480 of its 900 µs are compute.
      REQUIRE(steps->ranks.size() == 1);
      REQUIRE(steps->ranks[0].steps.size() == 3);
      CHECK(steps->ranks[0].steps[0].times.compute_ns == 480 * kStepUs);
    } else {
      // Without, a step would show as all idle: no steps, and why.
      CHECK(steps->ranks.empty());
      CHECK(steps->problem.starts_with("GPU capture recorded no API calls"));
    }
  }
}

TEST_CASE("kernels but no step ranges and no optimizer kernels: the problem says why") {
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  trace.Range("forward", 0, 100);
  trace.Kernel("fwd_kernel", 7, 10, 20, 30);
  trace.WriteTo(dir.File("rank0.vtrace"));
  const std::optional<StepsReport> steps = StepsOf(dir.path(), 1);
  REQUIRE(steps);
  CHECK(steps->ranks.empty());
  CHECK(steps->problem.starts_with("no NVTX range matched "));
}

TEST_CASE("no GPU kernels at all: no steps section") {
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  trace.Range("step", 0, 100);
  trace.WriteTo(dir.File("rank0.vtrace"));
  CHECK_FALSE(StepsOf(dir.path(), 0));
}
