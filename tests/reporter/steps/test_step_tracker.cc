// StepTracker's held records that run out of room: GPU work whose launch
// record never comes, and phase ranges dropped at the cap before the steps
// that needed them closed. Both are counted, never lost silently. Records
// are built in memory as the capture side writes them; times are ns.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "records_of.h"
#include "reporter/steps/step_tracker.h"

using namespace vprof::reporter;

namespace {

enum Iid : uint64_t { kStep = 1, kForward, kLaunch, kGemm };
const std::map<uint64_t, std::string> kNames = {{kStep, "train_step"},
                                                {kForward, "forward"},
                                                {kLaunch, "cudaLaunchKernel"},
                                                {kGemm, "sm90_xmma_gemm_f16f16_f32"}};

constexpr int64_t kKernelNs = 200;
// Phase range i: [kPhaseEvery * (i + 1), + 500]; every kKernelEvery-th
// launches one kernel (few enough for the tracker to hold them all).
constexpr int64_t kPhaseEvery = 1000;
constexpr int kKernelEvery = 10;
constexpr int64_t kFirstStepEnd = 2'000'000;
// The phase ranges a tracker keeps when it may hold as much work
// (StepTracker::LimitHeldWorks).
constexpr int kKeptRanges = 1024;

// The kernels launched in phase ranges [first, end).
int KernelsInRanges(int first, int end) {
  int kernels = 0;
  for (int i = first; i < end; ++i) kernels += i % kKernelEvery == 0;
  return kernels;
}

void AddRange(vprof::trace::NvtxBatch& batch, Iid name, int64_t start, int64_t end) {
  vprof::trace::NvtxRange& range = *batch.add_range();
  range.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
  range.set_name_iid(name);
  range.set_start_ns(static_cast<uint64_t>(start));
  range.set_end_ns(static_cast<uint64_t>(end));
}

// A kernel launched at `launch`, running kKernelNs from `start`; without
// `with_launch`, its cudaLaunchKernel record is missing.
void AddKernel(vprof::trace::GpuBatch& batch, uint32_t correlation, int64_t launch, int64_t start,
               bool with_launch = true) {
  if (with_launch) {
    vprof::trace::ApiCall& api = *batch.add_api();
    api.set_name_iid(kLaunch);
    api.set_start_ns(static_cast<uint64_t>(launch));
    api.set_duration_ns(5);
    api.set_tid(1);
    api.set_correlation_id(correlation);
  }
  vprof::trace::GpuKernel& kernel = *batch.add_kernel();
  kernel.set_name_iid(kGemm);
  kernel.set_start_ns(static_cast<uint64_t>(start));
  kernel.set_duration_ns(kKernelNs);
  kernel.set_stream(7);
  kernel.set_correlation_id(correlation);
}

// Two NVTX steps, [0, kFirstStepEnd] and one after it; the first holds
// `phases` forward ranges. Every NVTX range is read before any GPU record (a
// process whose CUPTI buffers lag), and the tracker keeps kKeptRanges phase
// ranges.
// The second step's kernel has no launch record when `lose_launch`.
ProcessSteps TrackSteps(int phases, bool lose_launch) {
  const StepPatterns patterns;
  StepTracker tracker([](uint64_t iid) { return kNames.at(iid); }, patterns);
  tracker.LimitHeldWorks(kKeptRanges);
  vprof::trace::NvtxBatch ranges;
  vprof::trace::GpuBatch work;
  for (int i = 0; i < phases; ++i) {
    const int64_t start = kPhaseEvery * (i + 1);
    AddRange(ranges, kForward, start, start + 500);
    if (i % kKernelEvery == 0) {
      AddKernel(work, static_cast<uint32_t>(i + 1), start + 100, start + 200);
    }
  }
  AddRange(ranges, kStep, 0, kFirstStepEnd);
  AddRange(ranges, kStep, kFirstStepEnd + 1000, kFirstStepEnd + 9000);
  AddKernel(work, 1'000'000, kFirstStepEnd + 2000, kFirstStepEnd + 3000, !lose_launch);
  tracker.AddNvtxBatch(ranges);
  tracker.AddGpuBatch(vprof::reporter::testing::RecordsOf(work));
  return tracker.Finish();
}

int64_t ForwardComputeNs(const ProcessSteps& steps) {
  const std::optional<StepDetail> detail = steps.nvtx.DetailFrom(0);
  REQUIRE(detail);
  const auto forward = detail->phases.find("forward");
  return forward == detail->phases.end() ? 0 : forward->second.compute_ns;
}

TEST_CASE("phase ranges within the cap: every step keeps its phases, none counted missing") {
  const int phases = kKeptRanges - 24;
  const ProcessSteps steps = TrackSteps(phases, false);
  REQUIRE(steps.nvtx.size() == 2);
  CHECK_FALSE(steps.nvtx.rows()[0].phase_ranges_missing);
  CHECK_FALSE(steps.nvtx.rows()[1].phase_ranges_missing);
  CHECK(ForwardComputeNs(steps) == KernelsInRanges(0, phases) * kKernelNs);
  CHECK(steps.unlaunched_records == 0);
}

TEST_CASE("phase ranges dropped at the cap: the step that needed them is counted") {
  // 1,500 ranges: the first 476 are dropped before any step closes. Each
  // ends inside the first step, so it is marked; the second starts after
  // all of them.
  const int phases = 1500;
  const ProcessSteps steps = TrackSteps(phases, false);
  REQUIRE(steps.nvtx.size() == 2);
  CHECK(steps.nvtx.rows()[0].phase_ranges_missing);
  CHECK_FALSE(steps.nvtx.rows()[1].phase_ranges_missing);
  // What was lost: the kernels of the dropped ranges are in no phase.
  CHECK(ForwardComputeNs(steps) == KernelsInRanges(phases - kKeptRanges, phases) * kKernelNs);
}

TEST_CASE("GPU work whose launch record never came is counted, in no step") {
  const ProcessSteps steps = TrackSteps(10, true);
  CHECK(steps.unlaunched_records == 1);
  REQUIRE(steps.nvtx.size() == 2);
  CHECK(steps.nvtx.rows()[1].step.times.compute_ns == 0);
  const ProcessSteps control = TrackSteps(10, false);
  CHECK(control.unlaunched_records == 0);
  CHECK(control.nvtx.rows()[1].step.times.compute_ns == kKernelNs);
}

}  // namespace
