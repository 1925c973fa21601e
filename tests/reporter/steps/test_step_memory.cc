// Each step's device memory from a process's allocations and releases
// (step_memory.h), worked out by hand, and the same from a trace file.
#include <catch2/catch.hpp>
#include <functional>

#include "reporter/steps/memory_summary.h"
#include "reporter/steps/step_memory.h"
#include "scratch_dir.h"
#include "step_trace.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr int64_t kMiB = 1 << 20;

// A change of the memory held, and an allocation call of `ns`, at `at_ns`.
MemoryEvent Held(int64_t at_ns, int64_t delta_bytes) {
  return {at_ns, delta_bytes, 0, MemoryCall::kNone};
}
MemoryEvent Call(int64_t at_ns, int64_t ns, MemoryCall call = MemoryCall::kAllocateOrFree) {
  return {at_ns, 0, ns, call};
}

RankStepReport Window(uint32_t step, int64_t start_ns, int64_t end_ns) {
  RankStepReport report;
  report.step = step;
  report.start_ns = start_ns;
  report.end_ns = end_ns;
  return report;
}

// Three steps [1000k, 1000k+500] with a kernel each, warmup 1 (steps 1 and 2
// measured), `add` putting each step's own records in (k, its start); the
// rank's steps as reported.
RankStepsReport ThreeSteps(StepTrace& trace, const std::function<void(int64_t, int64_t)>& add) {
  ScratchDir dir;
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t o = 1000 * k;
    trace.Range("step", o, o + 500);
    trace.Kernel(kGemmKernel, 7, o + 10, o + 20, o + 400);
    add(k, o);
    trace.FlushNvtx();
    trace.FlushGpu();
  }
  trace.WriteTo(dir.File("rank0.vtrace"));
  const Report report = StepReportOf(dir.path(), 1);
  REQUIRE(report.steps);
  REQUIRE(report.steps->ranks.size() == 1);
  return report.steps->ranks.front();
}

}  // namespace

TEST_CASE("a step's peak, low and churn from the events around and inside its window") {
  // Trace clock; the report's is 1000 ns later. Before step 0: +100 MiB at
  // 0. Step 0 [1100, 2000] (trace [100, 1000]): an allocation call of 30 ns
  // at 200, +50 MiB at 230, −20 MiB at 600, +10 MiB at 900. Step 1 [2000,
  // 3000] (trace [1000, 2000]): −100 MiB at 1500, read before the +40 MiB at
  // 1200 (CUPTI's buffers come out of order). After: +1 GiB at 2500.
  MemoryRecord record;
  record.recorded = true;
  for (const MemoryEvent& event :
       {Held(0, 100 * kMiB), Call(200, 30), Held(230, 50 * kMiB), Held(600, -20 * kMiB),
        Held(900, 10 * kMiB), Held(1500, -100 * kMiB), Held(1200, 40 * kMiB),
        Held(2500, 1024 * kMiB)}) {
    record.Add(event);
  }
  std::vector<RankStepReport> steps = {Window(0, 1100, 2000), Window(1, 2000, 3000)};
  AddStepMemory(record, 1000, steps);
  REQUIRE(steps[0].memory);
  const StepMemory& zero = *steps[0].memory;
  CHECK(zero.start_bytes == 100 * kMiB);
  CHECK(zero.peak_bytes == 150 * kMiB);  // after +50
  CHECK(zero.low_bytes == 100 * kMiB);
  CHECK(zero.allocations == 2);
  CHECK(zero.allocated_bytes == 60 * kMiB);
  CHECK(zero.releases == 1);
  CHECK(zero.released_bytes == 20 * kMiB);
  CHECK(zero.api_ns == 30);
  REQUIRE(steps[1].memory);
  const StepMemory& one = *steps[1].memory;
  CHECK(one.start_bytes == 140 * kMiB);  // 100 + 50 − 20 + 10
  CHECK(one.peak_bytes == 180 * kMiB);   // +40 at 1200 comes first by time
  CHECK(one.low_bytes == 80 * kMiB);
  CHECK(one.allocations == 1);
  CHECK(one.releases == 1);

  RankStepsReport rank;
  rank.steps = steps;
  const std::optional<RankMemorySummary> summary = SummarizeMemory(rank);
  REQUIRE(summary);
  CHECK(summary->peak_bytes == 180 * kMiB);
  CHECK(summary->peak_step == 1);
  CHECK(summary->low_bytes == 80 * kMiB);
  CHECK(summary->allocations == 1.5);
  CHECK(summary->allocated_bytes == 50.0 * kMiB);
  CHECK(summary->api_ns == 15);
}

TEST_CASE("without the memory kind in the capture, steps have no memory figures") {
  MemoryRecord record;  // recorded stays false
  record.Add(Held(0, kMiB));
  std::vector<RankStepReport> steps = {Window(0, 0, 100)};
  AddStepMemory(record, 0, steps);
  CHECK_FALSE(steps[0].memory);
  RankStepsReport rank;
  rank.steps = steps;
  CHECK_FALSE(SummarizeMemory(rank));
}

TEST_CASE("a trace's cudaMalloc and cudaFree records give each step its peak and churn") {
  // Steps [1000k, 1000k+500], warmup 1: each step allocates 64 MiB at
  // +100 (its cudaMalloc call lasting 2 µs) and frees it at +300, on top of
  // 1 GiB allocated before the first step; the last step frees only 32 MiB.
  StepTrace trace("node1", 100, 0);
  trace.RecordsMemory();
  trace.Allocate(1024 * kMiB, 0);
  const RankStepsReport rank = ThreeSteps(trace, [&](int64_t k, int64_t o) {
    trace.Allocate(64 * kMiB, o + 100);
    trace.Release(k == 2 ? 32 * kMiB : 64 * kMiB, o + 300);
  });
  REQUIRE(rank.steps.size() == 2);
  for (const RankStepReport& step : rank.steps) {
    INFO(step.step);
    REQUIRE(step.memory);
    CHECK(step.memory->start_bytes == 1024 * kMiB);
    CHECK(step.memory->peak_bytes == 1088 * kMiB);
    CHECK(step.memory->allocations == 1);
    CHECK(step.memory->allocated_bytes == 64 * kMiB);
    CHECK(step.memory->releases == 1);
    CHECK(step.memory->api_ns == 2 * 2 * kStepUs);  // cudaMalloc's and cudaFree's
  }
  CHECK(rank.steps[0].memory->low_bytes == 1024 * kMiB);
  CHECK(rank.steps[1].memory->low_bytes == 1024 * kMiB);
  CHECK(rank.steps[1].memory->released_bytes == 32 * kMiB);
}

TEST_CASE("NVML's samples give each step that holds one, and the rank, a peak, low and headroom") {
  // Steps [1000k, 1000k+500], warmup 1, measured: 1 and 2. GPU 0 is sampled
  // at +100 and +400 of every step and once between steps (+700, in no
  // step); GPU 1 only once, inside step 1, so GPU 0 (more samples) is the
  // rank's. Step 1: 10 and 30 GiB; between: 79 GiB (in no step, not the
  // peak); step 2: 20 and 25 GiB.
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  StepTrace trace("node1", 100, 0);
  trace.MemorySampling(true);
  const uint64_t used[3][3] = {{5, 6, 7}, {10, 30, 79}, {20, 25, 1}};
  const RankStepsReport rank = ThreeSteps(trace, [&](int64_t k, int64_t o) {
    trace.DeviceMemory(used[k][0] * kGiB, o + 100);
    trace.DeviceMemory(used[k][1] * kGiB, o + 400);
    trace.DeviceMemory(used[k][2] * kGiB, o + 700);
    if (k == 1) trace.DeviceMemory(70 * kGiB, o + 200, 1);
  });
  REQUIRE(rank.steps.size() == 2);
  REQUIRE(rank.steps[0].device_memory);
  CHECK(rank.steps[0].device_memory->samples == 2);
  CHECK(rank.steps[0].device_memory->peak_used_bytes == 30 * kGiB);
  CHECK(rank.steps[0].device_memory->low_used_bytes == 10 * kGiB);
  REQUIRE(rank.steps[1].device_memory);
  CHECK(rank.steps[1].device_memory->peak_used_bytes == 25 * kGiB);
  CHECK(rank.steps[1].device_memory->low_used_bytes == 20 * kGiB);
  REQUIRE(rank.device_memory);
  CHECK(rank.device_memory->device == 0);
  CHECK(rank.device_memory->interval_ns == 250 * kStepUs);
  CHECK(rank.device_memory->sampled.samples == 4);
  CHECK(rank.device_memory->sampled.peak_used_bytes == 30 * kGiB);
  CHECK(rank.device_memory->sampled.low_used_bytes == 10 * kGiB);
  CHECK(rank.device_memory->peak_step == 1);
  CHECK(rank.device_memory->total_bytes == 80 * kGiB);
  CHECK(rank.memory_unavailable.empty());
}

TEST_CASE("a capture that could not sample says why, and its steps have no sampled figures") {
  StepTrace trace("node1", 100, 0);
  trace.MemorySampling(false, "libnvidia-ml.so.1: cannot open shared object file");
  const RankStepsReport rank = ThreeSteps(trace, [](int64_t, int64_t) {});
  CHECK_FALSE(rank.device_memory);
  CHECK_FALSE(rank.steps.at(0).device_memory);
  CHECK(rank.memory_unavailable == "libnvidia-ml.so.1: cannot open shared object file");
}

TEST_CASE("allocation calls in the steps are counted without the memory kind") {
  // Steps [1000, 2000] and [3000, 4000]; calls of 30 ns at 1500, 50 ns at 2500 (between
  // steps), 70 ns at 3000 (a step's first instant); an allocation record without a call.
  MemoryRecord record;  // recorded stays false: only API records
  for (const MemoryEvent& event :
       {Call(1500, 30), Call(2500, 50), Call(3000, 70), Held(3500, kMiB)}) {
    record.Add(event);
  }
  RankStepsReport rank;
  rank.steps = {Window(0, 1000, 2000), Window(1, 3000, 4000)};
  AddAllocationCalls(record, 0, rank);
  CHECK(rank.allocation_calls == 2);
  CHECK(rank.allocation_call_ns == 100);
}

TEST_CASE("large device-host copies and virtual-memory unmaps and maps, per step") {
  // Steps [1000, 2000] and [3000, 4000]. Step 0: 2 GiB to host (two 1 GiB copies of 400 and
  // 500 ns), an unmap of 20 ns at 1800. Between steps: a 1 GiB copy to device at
  // 2500 (in no step). Step 1: a map of 30 ns at 3000 and 1 GiB back to device at 3100 (600
  // ns); an allocation call at 3200 is no map.
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  MemoryRecord record;
  for (const TransferEvent& copy :
       {TransferEvent{1100, 400, kGiB, true}, TransferEvent{1500, 500, kGiB, true},
        TransferEvent{2500, 700, kGiB, false}, TransferEvent{3100, 600, kGiB, false}}) {
    record.AddTransfer(copy);
  }
  for (const MemoryEvent& event :
       {Call(1800, 20, MemoryCall::kUnmap), Call(3000, 30, MemoryCall::kMap), Call(3200, 90)}) {
    record.Add(event);
  }
  RankStepsReport rank;
  rank.steps = {Window(0, 1000, 2000), Window(1, 3000, 4000)};
  AddStepTransfers(record, 0, rank);
  REQUIRE(rank.steps[0].transfers);
  const StepTransfers& out = *rank.steps[0].transfers;
  CHECK(out.to_host_copies == 2);
  CHECK(out.to_host_bytes == 2 * kGiB);
  CHECK(out.to_host_ns == 900);
  CHECK(out.to_device_copies == 0);
  CHECK(out.unmaps == 1);
  CHECK(out.maps == 0);
  CHECK(out.map_call_ns == 20);
  REQUIRE(rank.steps[1].transfers);
  const StepTransfers& back = *rank.steps[1].transfers;
  CHECK(back.to_device_copies == 1);
  CHECK(back.to_device_bytes == kGiB);
  CHECK(back.to_device_ns == 600);
  CHECK(back.maps == 1);
  CHECK(back.map_call_ns == 30);
  CHECK(back.to_host_bytes == 0);
}

TEST_CASE("API names tell allocation calls from virtual-memory maps and unmaps") {
  CHECK(MemoryCallOf("cudaMalloc_v3020") == MemoryCall::kAllocateOrFree);
  CHECK(MemoryCallOf("cuMemRelease") == MemoryCall::kAllocateOrFree);
  CHECK(MemoryCallOf("cuMemMap") == MemoryCall::kMap);
  CHECK(MemoryCallOf("cuMemUnmap") == MemoryCall::kUnmap);
  CHECK(MemoryCallOf("cudaMallocHost_v3020") == MemoryCall::kNone);
  CHECK(MemoryCallOf("cudaLaunchKernel_v7000") == MemoryCall::kNone);
}

TEST_CASE("each phase's peak and low held, and NVML's samples, over its spans in the steps") {
  // Trace clock; the report's is 1000 ns later. +100 MiB at 0. Step 1:
  // forward [100, 300] gets +50 MiB at 150; backward [300, 600] −30 MiB at
  // 400. Step 2: forward [1100, 1300] +80 MiB at 1200; backward [1300, 1600]
  // −100 MiB at 1500. Optimizer (inferred) [1600, 1700] in step 2: nothing.
  // GPU 0 sampled at 200 (10 GiB, forward), 500 (20 GiB, backward) and 1550
  // (30 GiB, backward); GPU 1 at 1250, not the rank's GPU.
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  MemoryRecord record;
  record.recorded = true;
  for (const MemoryEvent& event : {Held(0, 100 * kMiB), Held(150, 50 * kMiB), Held(400, -30 * kMiB),
                                   Held(1200, 80 * kMiB), Held(1500, -100 * kMiB)}) {
    record.Add(event);
  }
  for (const DeviceMemorySampleRow& sample :
       {DeviceMemorySampleRow{200, 0, 10 * kGiB, 80 * kGiB},
        DeviceMemorySampleRow{500, 0, 20 * kGiB, 80 * kGiB},
        DeviceMemorySampleRow{1250, 1, 70 * kGiB, 80 * kGiB},
        DeviceMemorySampleRow{1550, 0, 30 * kGiB, 80 * kGiB}}) {
    record.AddSample(sample);
  }
  const std::vector<PhaseWindow> spans = {{"forward", true, 1, 1100, 1300},
                                          {"backward", true, 1, 1300, 1600},
                                          {"forward", true, 2, 2100, 2300},
                                          {"backward", true, 2, 2300, 2600},
                                          {"optimizer", false, 2, 2600, 2700}};
  RankStepsReport rank;
  rank.device_memory.emplace();  // GPU 0
  AddPhaseMemory(record, 1000, spans, rank);
  REQUIRE(rank.phase_memory.size() == 3);

  const PhaseMemoryReport& backward = rank.phase_memory[0];
  CHECK(backward.phase == "backward");
  CHECK(backward.from_nvtx);
  CHECK(backward.steps == 2);
  REQUIRE(backward.held);
  CHECK(backward.held->peak_bytes == 200 * kMiB);  // held when step 2's backward began
  CHECK(backward.held->peak_step == 2);
  CHECK(backward.held->low_bytes == 100 * kMiB);
  REQUIRE(backward.device_memory);
  CHECK(backward.device_memory->samples == 2);
  CHECK(backward.device_memory->peak_used_bytes == 30 * kGiB);
  CHECK(backward.device_memory->low_used_bytes == 20 * kGiB);

  const PhaseMemoryReport& forward = rank.phase_memory[1];
  CHECK(forward.phase == "forward");
  REQUIRE(forward.held);
  CHECK(forward.held->peak_bytes == 200 * kMiB);
  CHECK(forward.held->peak_step == 2);
  CHECK(forward.held->low_bytes == 100 * kMiB);
  REQUIRE(forward.device_memory);
  CHECK(forward.device_memory->samples == 1);  // GPU 1's sample in its span is not the rank's
  CHECK(forward.device_memory->peak_used_bytes == 10 * kGiB);

  const PhaseMemoryReport& optimizer = rank.phase_memory[2];
  CHECK(optimizer.phase == "optimizer");
  CHECK_FALSE(optimizer.from_nvtx);
  CHECK(optimizer.steps == 1);
  REQUIRE(optimizer.held);
  CHECK(optimizer.held->peak_bytes == 100 * kMiB);
  CHECK(optimizer.held->low_bytes == 100 * kMiB);
  CHECK_FALSE(optimizer.device_memory);
}

TEST_CASE("NVTX phases in a trace's steps get the memory held inside their ranges") {
  // Steps [1000k, 1000k+500], warmup 1, on top of 1 GiB allocated first.
  // Step k: forward [+5, +200] allocates (k+1)·64 MiB at +100; backward
  // [+200, +450] allocates 16 MiB at +250 and frees the (k+1)·64 MiB at +300;
  // the 16 MiB are freed at +470, after backward. Each record lands 1 µs
  // after its call (StepTrace).
  StepTrace trace("node1", 100, 0);
  trace.RecordsMemory();
  trace.Allocate(1024 * kMiB, 0);
  const RankStepsReport rank = ThreeSteps(trace, [&](int64_t k, int64_t o) {
    trace.Range("forward", o + 5, o + 200, 1);
    trace.Range("backward", o + 200, o + 450, 1);
    trace.Allocate((k + 1) * 64 * kMiB, o + 100);
    trace.Allocate(16 * kMiB, o + 250);
    trace.Release((k + 1) * 64 * kMiB, o + 300);
    trace.Release(16 * kMiB, o + 470);
  });
  REQUIRE(rank.phase_memory.size() == 2);
  const PhaseMemoryReport& backward = rank.phase_memory[0];
  CHECK(backward.phase == "backward");
  CHECK(backward.from_nvtx);
  CHECK(backward.steps == 2);
  REQUIRE(backward.held);
  CHECK(backward.held->peak_bytes == (1024 + 3 * 64 + 16) * kMiB);
  CHECK(backward.held->peak_step == 2);
  CHECK(backward.held->low_bytes == (1024 + 16) * kMiB);
  const PhaseMemoryReport& forward = rank.phase_memory[1];
  CHECK(forward.phase == "forward");
  REQUIRE(forward.held);
  CHECK(forward.held->peak_bytes == (1024 + 3 * 64) * kMiB);
  CHECK(forward.held->peak_step == 2);
  CHECK(forward.held->low_bytes == 1024 * kMiB);
}

TEST_CASE("without NVTX phases, forward, backward and optimizer spans come from launches") {
  // Steps [1000k, 1000k+500] with no phase ranges, warmup 1, on top of 1 GiB.
  // Main thread 1 launches forward GEMMs at +10 and +60; thread 2 (autograd)
  // backward at +200 and +280; thread 1 then a clipping GEMM at +390 (after
  // backward: not forward) and Adam at +380 and +395. Forward allocates
  // 64 MiB at +30, backward frees them at +250, the optimizer allocates
  // 8 MiB at +388 and frees them at +480. GPU 0 is sampled at +40 (20 GiB),
  // +250 (30 GiB) and +300 (50 GiB, between backward and the optimizer).
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  StepTrace trace("node1", 100, 0);
  trace.RecordsMemory();
  trace.MemorySampling(true);
  trace.Allocate(1024 * kMiB, 0);
  const RankStepsReport rank = ThreeSteps(trace, [&](int64_t, int64_t o) {
    trace.Kernel(kGemmKernel, 7, o + 60, o + 100, o + 150);
    trace.LaunchFrom(2);
    trace.Kernel(kGemmKernel, 7, o + 200, o + 210, o + 260);
    trace.Kernel(kGemmKernel, 7, o + 280, o + 290, o + 330);
    trace.LaunchFrom(1);
    trace.Kernel(kAdamKernel, 7, o + 380, o + 400, o + 410);
    trace.Kernel(kGemmKernel, 7, o + 390, o + 410, o + 420);
    trace.Kernel(kAdamKernel, 7, o + 395, o + 420, o + 430);
    trace.Allocate(64 * kMiB, o + 30);
    trace.Release(64 * kMiB, o + 250);
    trace.Allocate(8 * kMiB, o + 388);
    trace.Release(8 * kMiB, o + 480);
    trace.DeviceMemory(20 * kGiB, o + 40);
    trace.DeviceMemory(30 * kGiB, o + 250);
    trace.DeviceMemory(50 * kGiB, o + 300);
  });
  REQUIRE(rank.phase_memory.size() == 3);
  const PhaseMemoryReport& backward = rank.phase_memory[0];
  CHECK(backward.phase == "backward");
  CHECK_FALSE(backward.from_nvtx);
  CHECK(backward.steps == 2);
  REQUIRE(backward.held);
  CHECK(backward.held->peak_bytes == 1088 * kMiB);
  CHECK(backward.held->low_bytes == 1024 * kMiB);  // freed at +251, inside [+200, +280]
  REQUIRE(backward.device_memory);
  CHECK(backward.device_memory->samples == 2);
  CHECK(backward.device_memory->peak_used_bytes == 30 * kGiB);

  const PhaseMemoryReport& forward = rank.phase_memory[1];
  CHECK(forward.phase == "forward");
  REQUIRE(forward.held);
  CHECK(forward.held->peak_bytes == 1088 * kMiB);
  CHECK(forward.held->low_bytes == 1024 * kMiB);
  REQUIRE(forward.device_memory);
  CHECK(forward.device_memory->samples == 2);  // +40 only: the span ends at +60
  CHECK(forward.device_memory->peak_used_bytes == 20 * kGiB);

  const PhaseMemoryReport& optimizer = rank.phase_memory[2];
  CHECK(optimizer.phase == "optimizer");
  REQUIRE(optimizer.held);
  CHECK(optimizer.held->peak_bytes == 1032 * kMiB);
  CHECK(optimizer.held->low_bytes == 1024 * kMiB);
  CHECK_FALSE(optimizer.device_memory);
}

TEST_CASE("forward-only passes before a step's training forward get an inferred logprob span") {
  // Steps [1000k, 1000k+500], no phase ranges, warmup 1, on top of 1 GiB. In launch order:
  // the main thread's logprob GEMMs at +2 and +6, the training forward at +10 (the same
  // kernel as the second forward at +30, so +2 and +6 are forward-only), backward from thread
  // 2 at +20 and +40, Adam at +50. Logprob allocates 16 MiB at +3 and frees them at +8; the
  // training forward allocates 64 MiB at +12, backward frees them at +42.
  StepTrace trace("node1", 100, 0);
  trace.RecordsMemory();
  trace.Allocate(1024 * kMiB, 0);
  ScratchDir dir;
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t o = 1000 * k;
    trace.Range("step", o, o + 500);
    for (const int64_t launch : {o + 2, o + 6, o + 10}) {
      trace.Kernel(kGemmKernel, 7, launch, launch + 100, launch + 101);
    }
    trace.LaunchFrom(2);
    trace.Kernel(kGemmKernel, 7, o + 20, o + 200, o + 201);
    trace.LaunchFrom(1);
    trace.Kernel(kGemmKernel, 7, o + 30, o + 210, o + 211);
    trace.LaunchFrom(2);
    trace.Kernel(kGemmKernel, 7, o + 40, o + 220, o + 221);
    trace.LaunchFrom(1);
    trace.Kernel(kAdamKernel, 7, o + 50, o + 230, o + 231);
    trace.Allocate(16 * kMiB, o + 3);
    trace.Release(16 * kMiB, o + 8);
    trace.Allocate(64 * kMiB, o + 12);
    trace.Release(64 * kMiB, o + 42);
    trace.FlushNvtx();
    trace.FlushGpu();
  }
  trace.WriteTo(dir.File("rank0.vtrace"));
  const Report report = StepReportOf(dir.path(), 1);
  REQUIRE(report.steps);
  const std::vector<PhaseMemoryReport>& phases = report.steps->ranks.at(0).phase_memory;
  REQUIRE(phases.size() == 4);
  CHECK(phases[1].phase == "forward");  // [+10, +30]
  REQUIRE(phases[1].held);
  CHECK(phases[1].held->peak_bytes == 1088 * kMiB);
  CHECK(phases[1].held->low_bytes == 1024 * kMiB);
  CHECK(phases[2].phase == "logprob");  // [+2, +6]
  CHECK_FALSE(phases[2].from_nvtx);
  CHECK(phases[2].steps == 2);
  REQUIRE(phases[2].held);
  CHECK(phases[2].held->peak_bytes == 1040 * kMiB);
  CHECK(phases[2].held->low_bytes == 1024 * kMiB);
  CHECK(phases[0].phase == "backward");
  CHECK(phases[3].phase == "optimizer");
}
