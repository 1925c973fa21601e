#include "candidate_fixture.h"

namespace vprof::reporter::testing {
namespace {

RankStepReport Step(uint32_t index, int64_t tp_exposed_ns, int64_t idle_host_bound_ns) {
  RankStepReport step;
  step.step = index;
  step.start_ns = index * 100 * kMs;
  step.end_ns = step.start_ns + 100 * kMs;
  step.times.window_ns = 100 * kMs;
  step.times.exposed_comm_ns = tp_exposed_ns;
  step.times.exposed_by_comm_ns[kTpComm] = tp_exposed_ns;
  step.times.exposed_by_reason_ns[ExposureReason::kSameStream] = tp_exposed_ns;
  step.times.idle_host_bound_ns = idle_host_bound_ns;
  step.times.idle_ns = idle_host_bound_ns + 1 * kMs;
  step.times.idle_waiting_ns = 1 * kMs;
  return step;
}

RankStepsReport Rank(int32_t rank, std::vector<RankStepReport> steps, SpanRef longest_comm) {
  RankStepsReport report;
  report.rank = rank;
  report.file = "rank" + std::to_string(rank) + ".vtrace";
  for (const RankStepReport& step : steps) {
    SegmentTimes& total = report.total;
    total.window_ns += step.times.window_ns;
    total.exposed_comm_ns += step.times.exposed_comm_ns;
    for (const auto& [id, ns] : step.times.exposed_by_comm_ns) total.exposed_by_comm_ns[id] += ns;
    for (const auto& [why, ns] : step.times.exposed_by_reason_ns) {
      total.exposed_by_reason_ns[why] += ns;
    }
    total.idle_ns += step.times.idle_ns;
    total.idle_host_bound_ns += step.times.idle_host_bound_ns;
    total.idle_waiting_ns += step.times.idle_waiting_ns;
  }
  report.steps = std::move(steps);
  report.longest_exposed_comm = std::move(longest_comm);
  return report;
}

// 100 ms long, rank 1 the slowest.
FullStepReport FullStep(uint32_t index) {
  FullStepReport step;
  step.step = index;
  step.start_ns = index * 100 * kMs;
  step.duration_ns = 100 * kMs;
  step.slowest_rank = 1;
  step.max_exposed_comm_ns = 50 * kMs;
  return step;
}

ProcessReport Process(int32_t rank) {
  ProcessReport process;
  process.file = "rank" + std::to_string(rank) + ".vtrace";
  process.rank = rank;
  process.is_rank = true;
  return process;
}

}  // namespace

Report StepsFixture() {
  Report report = NoStepsFixture();
  StepsReport steps;
  steps.steps_found = 2;
  steps.first_measured = 0;
  steps.last_measured = 1;
  steps.window = "steps 0-1 of 2";
  steps.ranks.push_back(
      Rank(0, {Step(0, 50 * kMs, 0), Step(1, 50 * kMs, 0)},
           {"correlation:5", "ncclDevKernel_AllReduce_Sum_f32", 7 * kMs, 9 * kMs}));
  steps.ranks.push_back(
      Rank(1, {Step(0, 28 * kMs, 22 * kMs), Step(1, 32 * kMs, 18 * kMs)},
           {"correlation:77", "ncclDevKernel_AllReduce_Sum_bf16", 130 * kMs, 12 * kMs}));
  steps.full_steps = {FullStep(0), FullStep(1)};
  steps.median_step_ns = 100 * kMs;
  report.steps = std::move(steps);
  return report;
}

Report NoStepsFixture() {
  Report report;
  report.directory = "run";
  report.processes = {Process(0), Process(1)};
  GpuReport& gpu = report.processes[0].gpu;
  gpu.batches = 1;
  gpu.kernel_classes = {
      {"gemm", 5000, 15 * kMs, 3 * kUs, 0.3},         // short, but not a fusable class
      {"elementwise", 2000, 10 * kMs, 5 * kUs, 0.2},  // 1000 per step, 5 µs: launch-bound
      {"copy", 400, 8 * kMs, 20 * kUs, 0.1},          // 20 µs mean: not short enough
      {"reduce", 100, 200 * kUs, 2 * kUs, 0.01},      // 50 per step: too few
  };
  gpu.top_kernels = {
      {"vectorized_elementwise_kernel<add>", "elementwise", 2000, 10 * kMs, 5 * kUs}};
  // NCCL kernel time: 40 ms of all-reduce on rank 1, 10 ms on rank 0.
  report.processes[0].gpu.nccl.ops = {{"ncclAllReduce", 100, 100, 100, 10 * kMs, 100 * kUs, 0, 0}};
  report.processes[1].gpu.nccl.ops = {{"ncclAllReduce", 100, 100, 100, 40 * kMs, 400 * kUs, 0, 0}};
  CommunicatorReport comm;
  comm.comm_id = kTpComm;
  comm.size = 2;
  comm.ranks_seen = {0, 1};
  OpReport op;
  op.op = "ncclAllReduce";
  op.count = 240;
  op.gpu_time_total_ns = 48 * kMs;
  comm.ops = {op};
  report.communicators = {comm};
  return report;
}

}  // namespace vprof::reporter::testing
