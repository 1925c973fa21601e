// Why communication was exposed and why the GPU sat idle, one cause per
// trace: NCCL on the compute stream, CUDA_DEVICE_MAX_CONNECTIONS=1, compute
// queued only while the collective ran (waited at once), idle gaps ended by
// work launched before (waiting) or after (host-bound) the gap began; and
// steps before cudaProfilerStart left out. Times in µs after the helper's
// origin; the report gives ns.
#include <catch2/catch.hpp>

#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "step_trace.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

StepsReport StepsOf(const std::string& directory, uint32_t warmup) {
  const Report report = StepReportOf(directory, warmup);
  REQUIRE(report.steps);
  return *report.steps;
}

// Steps at k*1000 µs, range "step" [o, o+300]:
//   C1 gemm s7 launch 10 [100,200]; AR (no NCCL call) on `ar_stream`, launch
//   20 [200,260]; C2 gemm s7 launch 30 [260,300].
// Window [o, o+300]: idle [0,100) host-bound (C1 launched at 10 > 0),
// compute 100, AR alone [200,260): exposed 60, blocking (C2 launched at 30 <
// 260), compute 40.
void WriteSerialRun(const std::string& path, uint32_t ar_stream, int steps,
                    const std::map<std::string, std::string>& env = {},
                    std::optional<int64_t> profiler_start_us = std::nullopt) {
  StepTrace trace("node1", 100, 0);
  if (profiler_start_us) trace.Api("cudaProfilerStart", *profiler_start_us);
  for (int64_t o = 0; o < steps * 1000; o += 1000) {
    trace.Range("step", o, o + 300);
    trace.Kernel(kGemmKernel, 7, o + 10, o + 100, o + 200);
    trace.Kernel(kAllReduceKernel, ar_stream, o + 20, o + 200, o + 260);
    trace.Kernel(kGemmKernel, 7, o + 30, o + 260, o + 300);
    trace.FlushNvtx();
    trace.FlushGpu();
  }
  trace.WriteTo(path, env);
}

}  // namespace

TEST_CASE("NCCL kernels on the compute stream are exposed for the same_stream reason") {
  ScratchDir dir;
  WriteSerialRun(dir.File("rank0.vtrace"), 7, 2);
  const StepsReport steps = StepsOf(dir.path(), 0);
  REQUIRE(steps.ranks.size() == 1);
  const RankStepsReport& rank = steps.ranks[0];
  REQUIRE(rank.steps.size() == 2);
  const SegmentTimes& times = rank.steps[1].times;
  CHECK(times.window_ns == 300 * kStepUs);
  CHECK(times.compute_ns == 140 * kStepUs);
  CHECK(times.exposed_comm_ns == 60 * kStepUs);
  CHECK(times.exposed_comm_blocking_ns == 60 * kStepUs);
  CHECK(times.overlapped_comm_ns == 0);
  CHECK(times.idle_host_bound_ns == 100 * kStepUs);
  CHECK(times.exposed_by_reason_ns ==
        NsByKey<ExposureReason>{{ExposureReason::kSameStream, 60 * kStepUs}});
  // No NCCL call linked: communicator 0; the op comes from the kernel's name.
  CHECK(times.exposed_by_comm_ns == NsByKey<uint64_t>{{0, 60 * kStepUs}});
  REQUIRE(rank.steps[1].buckets.size() == 1);
  CHECK(NcclFunctionName(rank.steps[1].buckets[0].op) == "ncclAllReduce");
  CHECK(rank.steps[1].buckets[0].bytes == 0);
  REQUIRE(rank.streams.size() == 1);
  CHECK(rank.streams[0].role == "mixed");
  CHECK(steps.window == "steps 1-2 of 2 (none left out)");
}

TEST_CASE("CUDA_DEVICE_MAX_CONNECTIONS=1 is the reason before nothing_to_overlap") {
  ScratchDir plain;
  ScratchDir one_queue;
  // The AR on its own stream 13; no compute was launched while it ran
  // [200,260] (launches at 10 and 30): nothing_to_overlap, unless the
  // environment serializes the streams.
  WriteSerialRun(plain.File("rank0.vtrace"), 13, 2);
  WriteSerialRun(one_queue.File("rank0.vtrace"), 13, 2, {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}});
  const StepsReport without = StepsOf(plain.path(), 0);
  const StepsReport with = StepsOf(one_queue.path(), 0);
  CHECK_FALSE(without.ranks.at(0).max_connections_one);
  CHECK(without.ranks.at(0).total.exposed_by_reason_ns ==
        NsByKey<ExposureReason>{{ExposureReason::kNothingToOverlap, 120 * kStepUs}});
  CHECK(with.ranks.at(0).max_connections_one);
  CHECK(with.ranks.at(0).total.exposed_by_reason_ns ==
        NsByKey<ExposureReason>{{ExposureReason::kMaxConnectionsOne, 120 * kStepUs}});
}

TEST_CASE("idle gaps are host-bound or waiting; compute queued during a collective waited") {
  // One step, range [0,500]:
  //   K1 gemm s7 launch 0   [0,100]
  //   K2 gemm s7 launch 50  [150,200]  gap [100,150) ended by K2, launched at 50 <= 100: waiting 50
  //   K3 gemm s7 launch 250 [300,350]  gap [200,300) ended by K3, launched at 250 > 200: host-bound
  //   100 AR  s13    launch 340 [350,400]  alone: exposed 50; K4 was launched at 360 < 400:
  //   blocking K4 gemm s7 launch 360 [400,450]  launched while AR ran, started when it ended:
  //   waited_at_once
  // Window [0,500], to the range's end: compute 100+50+50+50 = 250, exposed
  // 50, idle 200: the gap [450,500) after the last kernel is host-bound (the
  // host launched nothing more in the step).
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  trace.Range("vprof.step", 0, 500);
  trace.Kernel(kGemmKernel, 7, 0, 0, 100);
  trace.Kernel(kGemmKernel, 7, 50, 150, 200);
  const uint32_t k3 = trace.Kernel(kGemmKernel, 7, 250, 300, 350);
  trace.Kernel(kAllReduceKernel, 13, 340, 350, 400);
  trace.Kernel(kGemmKernel, 7, 360, 400, 450);
  trace.WriteTo(dir.File("rank0.vtrace"));

  const StepsReport steps = StepsOf(dir.path(), 0);
  const RankStepsReport& rank = steps.ranks.at(0);
  const SegmentTimes& times = rank.total;
  CHECK(times.window_ns == 500 * kStepUs);
  CHECK(times.compute_ns == 250 * kStepUs);
  CHECK(times.exposed_comm_ns == 50 * kStepUs);
  CHECK(times.exposed_comm_blocking_ns == 50 * kStepUs);
  CHECK(times.idle_ns == 200 * kStepUs);
  CHECK(times.idle_waiting_ns == 50 * kStepUs);
  CHECK(times.idle_host_bound_ns == 150 * kStepUs);
  CHECK(times.exposed_by_reason_ns ==
        NsByKey<ExposureReason>{{ExposureReason::kWaitedAtOnce, 50 * kStepUs}});
  REQUIRE(rank.longest_idle_gap);
  CHECK(rank.longest_idle_gap->id == "correlation:" + std::to_string(k3));
  CHECK(rank.longest_idle_gap->start_ns == kStepBase + 200 * kStepUs);
  CHECK(rank.longest_idle_gap->duration_ns == 100 * kStepUs);
}

TEST_CASE("steps that began before cudaProfilerStart are left out before the warmup") {
  // Steps start at 0, 1000, 2000; cudaProfilerStart at 950 leaves out step 0,
  // warmup 1 then step 1: step 2 is measured.
  ScratchDir dir;
  WriteSerialRun(dir.File("rank0.vtrace"), 7, 3, {}, 950);
  const StepsReport steps = StepsOf(dir.path(), 1);
  CHECK(steps.before_profiler_start_excluded);
  CHECK(steps.first_measured == 2);
  CHECK(steps.last_measured == 2);
  CHECK(steps.window == "step 3 of 3 (step 1, before cudaProfilerStart; step 2, warmup, left out)");
  REQUIRE(steps.ranks.at(0).steps.size() == 1);
  CHECK(steps.ranks.at(0).steps[0].start_ns == kStepBase + 2000 * kStepUs);
}

TEST_CASE("too few steps for the warmup: a problem, no figures") {
  ScratchDir dir;
  WriteSerialRun(dir.File("rank0.vtrace"), 7, 1);
  const StepsReport steps = StepsOf(dir.path(), 1);
  CHECK(steps.full_steps.empty());
  CHECK(steps.problem ==
        "a rank has only 1 steps, and the first 1 are left out (warmup); lower --warmup or "
        "trace more steps");
}

TEST_CASE("the longest idle gap keeps its kernel's name whatever the warmup") {
  // Three steps, range "vprof.step" [o, o+900] at o = 1000k µs, all on s7: a
  // gemm launched at o runs [o, o+10]; kernel_k, launched at o+5, runs
  // [o+10+g_k, o+20+g_k], after a gap of g_k = 100, 200, 200 µs (the
  // window starts with the gemm: no other gap). The report names the first
  // step's gap of the largest length among the measured steps:
  //   warmup 0 (steps 0-2): step 1's (200 µs, the first of two), kernel_b;
  //   warmup 2 (step 2): step 2's, kernel_c.
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  const int64_t gaps[] = {100, 200, 200};
  const std::string_view names[] = {"kernel_a", "kernel_b", "kernel_c"};
  uint32_t enders[3] = {};
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t o = 1000 * k;
    trace.Range("vprof.step", o, o + 900);
    trace.Kernel(kGemmKernel, 7, o, o, o + 10);
    enders[k] = trace.Kernel(names[k], 7, o + 5, o + 10 + gaps[k], o + 20 + gaps[k]);
  }
  trace.WriteTo(dir.File("rank0.vtrace"));

  const StepsReport all = StepsOf(dir.path(), 0);
  REQUIRE(all.ranks.at(0).longest_idle_gap);
  const SpanRef& first = *all.ranks.at(0).longest_idle_gap;
  CHECK(first.id == "correlation:" + std::to_string(enders[1]));
  CHECK(first.name == "kernel_b");
  CHECK(first.start_ns == kStepBase + 1010 * kStepUs);
  CHECK(first.duration_ns == 200 * kStepUs);

  const StepsReport last = StepsOf(dir.path(), 2);
  REQUIRE(last.ranks.at(0).longest_idle_gap);
  CHECK(last.ranks.at(0).longest_idle_gap->id == "correlation:" + std::to_string(enders[2]));
  CHECK(last.ranks.at(0).longest_idle_gap->name == "kernel_c");
  CHECK(last.ranks.at(0).longest_idle_gap->start_ns == kStepBase + 2010 * kStepUs);
}
