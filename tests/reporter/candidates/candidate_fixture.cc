#include "candidate_fixture.h"

#include "reporter/steps/full_steps.h"
#include "reporter/steps/step_store.h"

namespace vprof::reporter::testing {
namespace {

// One TP all-reduce launched in forward, exposed from its start for
// `exposed_ns` of its `duration_ns`.
void AddTpCollective(RankStepReport& step, uint64_t seq, int64_t duration_ns, int64_t exposed_ns) {
  StepCollective collective;
  collective.comm_id = kTpComm;
  collective.seq = seq;
  collective.bytes = 1 << 20;
  collective.start_ns = step.start_ns;
  collective.duration_ns = duration_ns;
  collective.exposed_ns = exposed_ns;
  collective.first_piece = static_cast<uint32_t>(step.exposed_pieces.size());
  collective.pieces = 1;
  collective.correlation_id = static_cast<uint32_t>(seq) + 100;
  collective.phase = kForward;
  collective.function = NcclFunction::kAllReduce;
  step.collectives.push_back(collective);
  step.exposed_pieces.push_back({0, exposed_ns});
}

// Rank 1's step i: compute 49 ms (forward 20, backward 29), two TP
// all-reduces of 14 or 16 ms each, fully exposed and the shortest of their
// collectives (rank 1 arrives last), host-bound idle 22 or 18 ms in
// forward, waiting idle 1 ms: 100 ms. Rank 0's: the same compute less 3 ms
// of backward, the same all-reduces lasting 25 ms each (11 or 9 ms of them
// waiting for rank 1), waiting idle 1 ms: 97 ms, so that it ends before rank
// 1 (or, with `end_together`, 3 ms more host-bound idle: 100 ms).
RankStepReport Step(int32_t rank, uint32_t index, bool end_together) {
  const bool even = index % 2 == 0;
  const int64_t tp_ns = (even ? 14 : 16) * kMs;
  RankStepReport step;
  step.step = index;
  step.launches = 10;
  step.start_ns = index * 100 * kMs;
  SegmentTimes& t = step.times;
  t.idle_waiting_ns = 1 * kMs;
  const uint64_t seq = 2 * index + 1;
  if (rank == 1) {
    step.compute_by_phase = {{kForward, 20 * kMs}, {kBackward, 29 * kMs}};
    AddTpCollective(step, seq, tp_ns, tp_ns);
    AddTpCollective(step, seq + 1, tp_ns, tp_ns);
    t.idle_host_bound_ns = (even ? 22 : 18) * kMs;
    step.host_idle_by_phase = {{kForward, t.idle_host_bound_ns}};
  } else {
    step.compute_by_phase = {{kForward, 20 * kMs}, {kBackward, 26 * kMs}};
    AddTpCollective(step, seq, 25 * kMs, 25 * kMs);
    AddTpCollective(step, seq + 1, 25 * kMs, 25 * kMs);
    if (end_together) {
      t.idle_host_bound_ns = 3 * kMs;
      step.host_idle_by_phase = {{kBackward, 3 * kMs}};
    }
  }
  for (const PhaseTime& time : step.compute_by_phase) t.compute_ns += time.ns;
  for (const StepCollective& collective : step.collectives) {
    t.exposed_comm_ns += collective.exposed_ns;
    t.exposed_by_comm_ns[kTpComm] += collective.exposed_ns;
    t.exposed_by_reason_ns[ExposureReason::kSameStream] += collective.exposed_ns;
  }
  t.idle_ns = t.idle_host_bound_ns + t.idle_waiting_ns;
  t.window_ns = t.compute_ns + t.exposed_comm_ns + t.idle_ns;
  step.end_ns = step.start_ns + t.window_ns;
  return step;
}

RankStepsReport Rank(int32_t rank, uint32_t steps, bool end_together, SpanRef longest_comm) {
  RankStepsReport report;
  report.rank = rank;
  report.file = "rank" + std::to_string(rank) + ".vtrace";
  report.phase_names = {"", "forward", "backward"};
  report.steps_found = steps;
  for (uint32_t i = 0; i < steps; ++i) report.steps.push_back(Step(rank, i, end_together));
  for (const RankStepReport& step : report.steps) AddSegmentTimes(report.total, step.times);
  report.longest_exposed_comm = std::move(longest_comm);
  return report;
}

ProcessReport Process(int32_t rank) {
  ProcessReport process;
  process.file = "rank" + std::to_string(rank) + ".vtrace";
  process.rank = rank;
  process.is_rank = true;
  return process;
}

}  // namespace

Report StepsFixture(const FixtureSteps& shape) {
  Report report = NoStepsFixture();
  StepsReport steps;
  steps.steps_found = shape.steps;
  steps.first_measured = 0;
  steps.window =
      "steps 0-" + std::to_string(shape.steps - 1) + " of " + std::to_string(shape.steps);
  steps.ranks.push_back(
      Rank(0, shape.steps, shape.end_together,
           {"correlation:5", "ncclDevKernel_AllReduce_Sum_f32", 7 * kMs, 9 * kMs}));
  steps.ranks.push_back(
      Rank(1, shape.steps, shape.end_together,
           {"correlation:77", "ncclDevKernel_AllReduce_Sum_bf16", 130 * kMs, 12 * kMs}));
  CompleteFullSteps(steps);
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
