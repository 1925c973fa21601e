// The step analysis of `vprof report`, from trace files written the way the
// capture side writes them (step_trace.h): steps from NVTX ranges and from
// optimizer bursts, the split of each window into compute, exposed and
// overlapped communication, copies and idle, why communication was exposed,
// gradient buckets, streams and the full steps across ranks. Times in the
// comments are µs after the helper's origin; the report gives ns.
#include <catch2/catch.hpp>

#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "step_trace.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint32_t kCompute = 7;
constexpr uint32_t kComm = 13;
constexpr uint32_t kCopy = 9;

// One DDP step at `o` (µs) of the CPU clock, GPU shifted by `shift`:
//   range "train_step" [o, o+500]
//   F1 gemm     s7  launch 10  [100,200]
//   B1 gemm     s7  launch 20  [200,300]
//   AR1 nccl    s13 launch 30  [250,350]  call 10k+1, 1 MiB
//   B2 gemm     s7  launch 40  [300,320]
//   B3 gemm     s7  launch 45  [352,358]
//   AR2 nccl    s13 launch 50  [360,420]  call 10k+2, 2 MiB
//   copy        s9  launch 55  [420,430]
//   O1 adam     s7  launch 440 [450,480]
// Sweep of the window [o, o+500], to the range's end (each instant once):
//   [0,100)   idle, ended by F1 launched at 10 > 0: host-bound 100
//   [100,250) compute 150
//   [250,320) compute 70, AR1 under it: overlapped 70
//   [320,350) AR1 alone: exposed 30; next compute B3 launched at 45 < 350 (AR1's end): blocking
//   [350,352) idle 2, ended by B3 launched at 45 <= 350: waiting
//   [352,358) compute 6
//   [358,360) idle 2, ended by AR2 launched at 50: waiting
//   [360,420) AR2 alone: exposed 60; next compute O1 launched at 440 >= 420: idle-fill
//   [420,430) copy 10
//   [430,450) idle 20, ended by O1 launched at 440 > 430: host-bound
//   [450,480) compute 30
//   [480,500) idle 20, ended by nothing the step launched: host-bound
// compute 150+70+6+30 = 256, exposed 30+60 = 90 (blocking 30, idle-fill 60),
// overlapped 70, copy 10, idle 100+2+2+20+20 = 144 (host-bound 140, waiting 4);
// 256+90+10+144 = 500 = the window. No compute was launched while AR1
// [250,350] or AR2 [360,420] ran (launches 10..55, 440): nothing_to_overlap.
void AddDdpStep(StepTrace& trace, int64_t o, int64_t shift, uint64_t k) {
  const int64_t g = o + shift;
  trace.Range("train_step", o + shift, o + shift + 500);
  trace.Kernel(kGemmKernel, kCompute, g + 10, g + 100, g + 200);
  trace.Kernel(kGemmKernel, kCompute, g + 20, g + 200, g + 300);
  trace.Kernel(kAllReduceKernel, kComm, g + 30, g + 250, g + 350, 10 * k + 1, 1 << 20);
  trace.Kernel(kGemmKernel, kCompute, g + 40, g + 300, g + 320);
  trace.Kernel(kGemmKernel, kCompute, g + 45, g + 352, g + 358);
  trace.Kernel(kAllReduceKernel, kComm, g + 50, g + 360, g + 420, 10 * k + 2, 2 << 20);
  trace.Memcpy(kCopy, g + 55, g + 420, g + 430);
  trace.Kernel(kAdamKernel, kCompute, g + 440, g + 450, g + 480);
}

// Step k of the DDP step above at o = 1000 k, with the NVTX phases
// "forward" [o+5, o+15] (launches F1 at 10) and "backward" [o+15, o+47]
// (B1, AR1, B2, B3; AR2 is launched at 50, after it).
void AddDdpStepWithPhases(StepTrace& trace, uint64_t k) {
  const int64_t o = static_cast<int64_t>(k) * 1000;
  trace.Range("forward", o + 5, o + 15, 1);
  trace.Range("backward", o + 15, o + 47, 1);
  AddDdpStep(trace, o, 0, k);
}

// The steps report of one rank running `steps` AddDdpStepWithPhases steps,
// the first one warmup. With `gpu_last`, every NVTX range is written before
// any GPU record (a process whose CUPTI buffers lag; WriteTo writes them);
// otherwise each step's records are written together.
RankStepsReport PhasedRankSteps(uint64_t steps, bool gpu_last) {
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  for (uint64_t k = 0; k < steps; ++k) {
    AddDdpStepWithPhases(trace, k);
    trace.FlushNvtx();
    if (!gpu_last) {
      trace.FlushGpu();
      trace.FlushNccl();
    }
  }
  trace.WriteTo(dir.File("rank0.vtrace"));
  const Report report = StepReportOf(dir.path(), 1);
  REQUIRE(report.steps);
  return report.steps->ranks.at(0);
}

// Rank 0 as above; rank 1 the same 5 µs later. Rank 0 writes each step's
// NVTX range before its GPU records, rank 1 after them (both orders occur).
void WriteDdpRun(const std::string& directory) {
  StepTrace rank0("node1", 100, 0);
  StepTrace rank1("node1", 101, 1);
  for (uint64_t k = 0; k < 3; ++k) {
    const int64_t o = static_cast<int64_t>(k) * 1000;
    AddDdpStep(rank0, o, 0, k);
    rank0.FlushNvtx();
    rank0.FlushGpu();
    rank0.FlushNccl();
    AddDdpStep(rank1, o, 5, k);
    rank1.FlushNccl();
    rank1.FlushGpu();
    rank1.FlushNvtx();
  }
  rank0.WriteTo(directory + "/rank0.vtrace");
  rank1.WriteTo(directory + "/rank1.vtrace");
}

}  // namespace

TEST_CASE("two-rank DDP steps: split of the window, reasons, buckets, full steps") {
  ScratchDir dir;
  WriteDdpRun(dir.path());
  const Report report = StepReportOf(dir.path(), 1);
  REQUIRE(report.steps);
  const StepsReport& steps = *report.steps;
  CHECK(steps.problem.empty());
  CHECK(steps.source == StepSource::kNvtx);
  CHECK(steps.steps_found == 3);
  CHECK(steps.first_measured == 1);
  CHECK(steps.last_measured == 2);
  CHECK(steps.window == "steps 2-3 of 3 (step 1, warmup, left out)");
  REQUIRE(steps.ranks.size() == 2);

  for (const RankStepsReport& rank : steps.ranks) {
    REQUIRE(rank.steps.size() == 2);
    CHECK(rank.steps_found == 3);
    CHECK(rank.late_records == 0);
    CHECK(rank.steps[0].step == 1);
    CHECK(rank.steps[1].step == 2);
    const SegmentTimes& one = rank.steps[0].times;
    CHECK(one.window_ns == 500 * kStepUs);
    CHECK(one.compute_ns == 256 * kStepUs);
    CHECK(one.exposed_comm_ns == 90 * kStepUs);
    CHECK(one.exposed_comm_blocking_ns == 30 * kStepUs);
    CHECK(one.exposed_comm_idle_fill_ns == 60 * kStepUs);
    CHECK(one.overlapped_comm_ns == 70 * kStepUs);
    CHECK(one.copy_ns == 10 * kStepUs);
    CHECK(one.idle_ns == 144 * kStepUs);
    CHECK(one.idle_host_bound_ns == 140 * kStepUs);
    CHECK(one.idle_waiting_ns == 4 * kStepUs);
    CHECK(one.exposed_by_reason_ns ==
          NsByKey<ExposureReason>{{ExposureReason::kNothingToOverlap, 90 * kStepUs}});
    CHECK(one.exposed_by_comm_ns == NsByKey<uint64_t>{{0xA, 90 * kStepUs}});
    // Two measured steps: every figure doubles.
    CHECK(rank.total.window_ns == 1000 * kStepUs);
    CHECK(rank.total.compute_ns == 512 * kStepUs);
    CHECK(rank.total.exposed_comm_ns == 180 * kStepUs);

    // Buckets: no NVTX backward, so the reductions launched before the first
    // optimizer kernel (at 440): AR1 then AR2, offsets from the window start.
    const std::vector<BucketReport>& buckets = rank.steps[1].buckets;
    REQUIRE(buckets.size() == 2);
    CHECK(buckets[0].index == 0);
    CHECK(NcclFunctionName(buckets[0].op) == "ncclAllReduce");
    CHECK(buckets[0].comm_id == 0xA);
    CHECK(buckets[0].bytes == 1u << 20);
    CHECK(buckets[0].offset_ns == 250 * kStepUs);
    CHECK(buckets[0].gpu_ns == 100 * kStepUs);
    CHECK(buckets[0].exposed_ns == 30 * kStepUs);
    CHECK(buckets[1].bytes == 2u << 20);
    CHECK(buckets[1].offset_ns == 360 * kStepUs);
    CHECK(buckets[1].gpu_ns == 60 * kStepUs);
    CHECK(buckets[1].exposed_ns == 60 * kStepUs);
    CHECK(rank.bucket_plan_stable == true);

    // Streams: 7 ran 5 compute kernels per step (busy 100+100+20+6+30 = 256),
    // 13 the two all-reduces (100+60 = 160), 9 one copy (10); two steps.
    REQUIRE(rank.streams.size() == 3);
    CHECK(rank.streams[0].stream == kCompute);
    CHECK(rank.streams[0].role == "compute");
    CHECK(rank.streams[0].kernels == 10);
    CHECK(rank.streams[0].busy_ns == 512 * kStepUs);
    CHECK(rank.streams[1].stream == kCopy);
    CHECK(rank.streams[1].role == "copy");
    CHECK(rank.streams[1].busy_ns == 20 * kStepUs);
    CHECK(rank.streams[2].stream == kComm);
    CHECK(rank.streams[2].role == "communication");
    CHECK(rank.streams[2].busy_ns == 320 * kStepUs);

    // AR2 (60 exposed) is the longest exposed kernel; the longest gap is the
    // first 100 µs of a step, ended by F1 (correlation 1 of each step: step
    // 1's first kernel is the 9th launch, its correlation id 9).
    REQUIRE(rank.longest_exposed_comm);
    CHECK(rank.longest_exposed_comm->name == kAllReduceKernel);
    CHECK(rank.longest_exposed_comm->duration_ns == 60 * kStepUs);
    REQUIRE(rank.longest_idle_gap);
    CHECK(rank.longest_idle_gap->id == "correlation:9");
    CHECK(rank.longest_idle_gap->duration_ns == 100 * kStepUs);
  }
  CHECK(steps.ranks[0].rank == 0);
  CHECK(steps.ranks[1].rank == 1);
  CHECK(steps.ranks[0].longest_exposed_comm->id == "correlation:14");  // step 1's AR2
  CHECK(steps.ranks[0].steps[0].start_ns == kStepBase + 1000 * kStepUs);
  CHECK(steps.ranks[1].steps[0].end_ns == kStepBase + 1505 * kStepUs);

  // Full step 1: rank 0 [1000, 1500], rank 1 [1005, 1505]: 505 µs, rank 1 last.
  REQUIRE(steps.full_steps.size() == 2);
  CHECK(steps.full_steps[0].step == 1);
  CHECK(steps.full_steps[0].duration_ns == 505 * kStepUs);
  CHECK(steps.full_steps[0].slowest_rank == 1);
  CHECK(steps.full_steps[0].max_exposed_comm_ns == 90 * kStepUs);
  CHECK(steps.median_step_ns == 505 * kStepUs);
}

TEST_CASE("NVTX phases inside steps; the backward phase bounds the gradient buckets") {
  // AddDdpStepWithPhases:
  //   forward:  F1 [100,200]: window 100, compute 100
  //   backward: B1 [200,300], AR1 [250,350], B2 [300,320], B3 [352,358]:
  //     window [200,358] = 158: compute 100+20+6 = 126 (AR1 overlapped 70),
  //     AR1 alone [320,350) exposed 30, idle [350,352) 2; 126+30+2 = 158
  // Buckets: only AR1 was launched inside backward.
  const RankStepsReport rank = PhasedRankSteps(2, false);
  REQUIRE(rank.phases.size() == 2);
  CHECK(rank.phases[0].phase == "backward");
  CHECK(rank.phases[0].from_nvtx);
  CHECK(rank.phases[0].times.window_ns == 158 * kStepUs);
  CHECK(rank.phases[0].times.compute_ns == 126 * kStepUs);
  CHECK(rank.phases[0].times.overlapped_comm_ns == 70 * kStepUs);
  CHECK(rank.phases[0].times.exposed_comm_ns == 30 * kStepUs);
  CHECK(rank.phases[0].times.idle_ns == 2 * kStepUs);
  CHECK(rank.phases[1].phase == "forward");
  CHECK(rank.phases[1].times.window_ns == 100 * kStepUs);
  CHECK(rank.phases[1].times.compute_ns == 100 * kStepUs);
  REQUIRE(rank.steps.at(0).buckets.size() == 1);
  CHECK(rank.steps[0].buckets[0].bytes == 1u << 20);
  // The step's own figures do not change with phases.
  CHECK(rank.total.window_ns == 500 * kStepUs);
  CHECK(rank.total.compute_ns == 256 * kStepUs);
}

TEST_CASE("phase ranges stay until their steps close, however many come first") {
  // The phases test's steps, with every NVTX range written before any GPU
  // record: all steps stay open until the end, behind more phase ranges
  // than the fewest a process keeps (1,024). Each measured step still has
  // its backward (158 µs) and forward (100 µs) share, and its one bucket.
  constexpr uint64_t kSteps = 700;  // 1,400 phase ranges
  const RankStepsReport rank = PhasedRankSteps(kSteps, true);
  CHECK(rank.late_records == 0);
  REQUIRE(rank.phases.size() == 2);
  CHECK(rank.phases[0].phase == "backward");
  CHECK(rank.phases[0].times.window_ns == (kSteps - 1) * 158 * kStepUs);
  CHECK(rank.phases[1].phase == "forward");
  CHECK(rank.phases[1].times.window_ns == (kSteps - 1) * 100 * kStepUs);
  // Backward's range also says which reductions are gradient buckets.
  REQUIRE(rank.steps.size() == kSteps - 1);
  CHECK(rank.steps.front().buckets.size() == 1);
  CHECK(rank.bucket_plan_stable == true);
}
