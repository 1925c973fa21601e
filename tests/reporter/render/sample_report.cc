#include "sample_report.h"

namespace vprof::reporter::testing {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kUs = 1'000;

SegmentTimes Times(int64_t window, int64_t compute, int64_t exposed, int64_t copy, int64_t idle,
                   int64_t overlapped) {
  SegmentTimes times;
  times.window_ns = window;
  times.compute_ns = compute;
  times.exposed_comm_ns = exposed;
  times.copy_ns = copy;
  times.idle_ns = idle;
  times.overlapped_comm_ns = overlapped;
  return times;
}

ProcessReport Process(int32_t rank, const std::string& host) {
  ProcessReport process;
  process.file = "rank" + std::to_string(rank) + ".vtrace";
  process.host = host;
  process.pid = 100 + static_cast<uint32_t>(rank);
  process.rank = rank;
  process.rank_source = "header";
  process.is_rank = true;
  process.nccl_events = 40;
  process.end_reason = "exit";
  return process;
}

RankStepReport Step(uint32_t index, int64_t start, int64_t end, const SegmentTimes& times) {
  RankStepReport step;
  step.step = index;
  step.start_ns = start;
  step.end_ns = end;
  step.times = times;
  return step;
}

FullStepReport FullStep(uint32_t index, int64_t start, int64_t duration, int32_t slowest_rank,
                        int64_t max_exposed_comm) {
  FullStepReport step;
  step.step = index;
  step.start_ns = start;
  step.duration_ns = duration;
  step.slowest_rank = slowest_rank;
  step.max_exposed_comm_ns = max_exposed_comm;
  return step;
}

ProcessPhasesReport Phases(int32_t rank, int64_t span, std::vector<PhaseReport> phases) {
  ProcessPhasesReport process;
  process.rank = rank;
  process.file = "rank" + std::to_string(rank) + ".vtrace";
  process.ranges = 4;
  process.span_ns = span;
  process.phases = std::move(phases);
  return process;
}

PhaseReport Phase(const std::string& name, int64_t total, double share) {
  PhaseReport phase;
  phase.name = name;
  phase.source = "nvtx";
  phase.count = 2;
  phase.total_ns = total;
  phase.mean_ns = total / 2;
  phase.span_share = share;
  return phase;
}

OpReport Op(const std::string& name, int log2, int64_t mean_skew, int64_t max_skew) {
  OpReport op;
  op.op = name;
  op.bucket = SizeBucket{log2};
  op.count = 8;
  op.mean_time_ns = 100 * kUs;
  op.busbw_gbps = 12.5;
  op.mean_arrival_skew_ns = mean_skew;
  op.max_arrival_skew_ns = max_skew;
  op.most_often_last_rank = 1;
  op.most_often_last_times = 6;
  return op;
}

CandidateReport Candidate(uint32_t order, const std::string& kind, const std::string& title,
                          CandidateScope scope, int64_t exposed, double share, StrictTag strict,
                          const std::string& rule) {
  CandidateReport candidate;
  candidate.rank_order = order;
  candidate.kind = kind;
  candidate.title = title;
  candidate.change = kind + "_change";
  candidate.scope = scope;
  candidate.exposed_ns = exposed;
  candidate.step_share = share;
  candidate.count = 4;
  candidate.strict = strict;
  candidate.rule = rule;
  candidate.evidence = {"fact one", "fact two"};
  return candidate;
}

}  // namespace

Report SampleReport() {
  Report report;
  report.directory = "/runs/demo<&>";
  report.time_source.hosts = {"node-a", "node-b"};
  report.time_source.aligned_to_realtime = true;
  report.time_source.clock_error_bound_ns = 2500;  // "±2.50 µs"

  report.processes = {Process(0, "node-a"), Process(1, "node-b")};
  KernelReport gemm;
  gemm.name = "void gemm<float, 128>(float*)";  // shown as "gemm<float, 128>"
  gemm.kernel_class = "gemm";
  gemm.count = 16;
  gemm.total_ns = 96 * kMs;
  gemm.mean_ns = 6 * kMs;
  report.processes[0].gpu.top_kernels = {gemm};

  StepsReport steps;
  steps.steps_found = 4;
  steps.warmup_steps = 2;
  steps.first_measured = 2;
  steps.last_measured = 3;
  steps.window = "steps 3-4 of 4 (steps 1-2, warmup, left out)";
  // Rank 0, each step 10 ms: compute 6 + exposed 2 + copy 1 + idle 1 = 10;
  // overlapped 3. Its total over both steps: 20 = 12 (60%) + 4 (20%) + 2
  // (10%) + 2 (10%); overlapped 6 (30%).
  RankStepsReport rank0;
  rank0.rank = 0;
  rank0.file = "rank0.vtrace";
  const SegmentTimes step0 = Times(10 * kMs, 6 * kMs, 2 * kMs, kMs, kMs, 3 * kMs);
  rank0.steps = {Step(2, 1 * kMs, 11 * kMs, step0), Step(3, 12 * kMs, 22 * kMs, step0)};
  rank0.total = Times(20 * kMs, 12 * kMs, 4 * kMs, 2 * kMs, 2 * kMs, 6 * kMs);
  // Rank 1 starts 0.5 ms later, each step 9.5 ms: compute 4.75 + exposed 2.85
  // + copy 0.95 + idle 0.95 = 9.5; overlapped 1. Total 19 = 9.5 (50%) + 5.7
  // (30%) + 1.9 (10%) + 1.9 (10%); overlapped 2 (10.5%).
  RankStepsReport rank1;
  rank1.rank = 1;
  rank1.file = "rank1.vtrace";
  const SegmentTimes step1 = Times(9500 * kUs, 4750 * kUs, 2850 * kUs, 950 * kUs, 950 * kUs, kMs);
  rank1.steps = {Step(2, 1500 * kUs, 11 * kMs, step1), Step(3, 12500 * kUs, 22 * kMs, step1)};
  rank1.total = Times(19 * kMs, 9500 * kUs, 5700 * kUs, 1900 * kUs, 1900 * kUs, 2 * kMs);
  steps.ranks = {rank0, rank1};
  // Both full steps last 10 ms (1 to 11, 12 to 22): the timeline draws step 2.
  steps.full_steps = {FullStep(2, 1 * kMs, 10 * kMs, 0, 2850 * kUs),
                      FullStep(3, 12 * kMs, 10 * kMs, 0, 2850 * kUs)};
  steps.median_step_ns = 10 * kMs;
  report.steps = steps;

  // Rank 0's span: forward 6 ms (60%) + backward 4 ms (40%) = 10 ms. Rank 1's:
  // forward 5 (50%) + backward 3 (30%), 2 ms (20%) outside both.
  report.any_nvtx_ranges = true;
  report.phases = {
      Phases(0, 10 * kMs, {Phase("forward", 6 * kMs, 0.6), Phase("backward", 4 * kMs, 0.4)}),
      Phases(1, 10 * kMs, {Phase("forward", 5 * kMs, 0.5), Phase("backward", 3 * kMs, 0.3)}),
  };

  // Skew scale: the largest max skew, 80 µs, fills the bar.
  CommunicatorReport comm;
  comm.comm_id = 0xabc;
  comm.size = 2;
  comm.ranks_seen = {0, 1};
  comm.ops = {Op("ncclAllReduce", 20, 20 * kUs, 80 * kUs),
              Op("ncclAllGather", 10, 10 * kUs, 40 * kUs)};
  report.communicators = {comm};

  report.candidates = {
      Candidate(1, "tp_communication", "Overlap TP all-reduce | with compute",
                CandidateScope::kFullStep, 2850 * kUs, 0.285, StrictTag::kNeedsContract,
                "R3: changes collective order <needs contract>"),
      Candidate(2, "launch_bound_kernels", "Capture forward in a CUDA graph",
                CandidateScope::kActorWindow, kMs, 0.1, StrictTag::kEligible,
                "R1: same kernels & same order"),
      Candidate(3, "weight_sync", "Fuse weight sync", CandidateScope::kOperator, 500 * kUs, 0.05,
                StrictTag::kNotEligible, "R7: changes reduction order"),
  };
  return report;
}

Report ManyRanksReport(int ranks) {
  Report report;
  report.directory = "/runs/many";
  StepsReport steps;
  steps.steps_found = 3;
  steps.warmup_steps = 2;
  steps.first_measured = 2;
  steps.last_measured = 2;
  steps.window = "step 3 of 3 (steps 1-2, warmup, left out)";
  report.any_nvtx_ranges = true;
  KernelReport gemm;
  gemm.name = "gemm";
  gemm.kernel_class = "gemm";
  gemm.count = 4;
  for (int32_t rank = 0; rank < ranks; ++rank) {
    const int64_t window = 10 * kMs + ((7 * rank + 5) % 40) * 10 * kUs;
    ProcessReport process = Process(rank, "node-" + std::to_string(rank / 8));
    process.nccl_events = 1000 + static_cast<uint64_t>(rank);
    if (rank == 31) process.dropped_events = 5;
    gemm.total_ns = window / 2;
    gemm.mean_ns = window / 8;
    process.gpu.top_kernels = {gemm};
    report.processes.push_back(process);

    RankStepsReport rank_steps;
    rank_steps.rank = rank;
    rank_steps.file = process.file;
    // Compute 60%, exposed 20%, copy 10%, idle 10%; overlapped 30%.
    const SegmentTimes times =
        Times(window, window * 6 / 10, window * 2 / 10, window / 10,
              window - window * 6 / 10 - window * 2 / 10 - window / 10, window * 3 / 10);
    const int64_t start = kMs + rank * kUs;
    rank_steps.steps = {Step(2, start, start + window, times)};
    rank_steps.total = times;
    if (rank == 12 || rank == 31) rank_steps.late_records = 3;
    steps.ranks.push_back(rank_steps);

    ProcessPhasesReport phases =
        Phases(rank, window,
               {Phase("forward", window * 6 / 10, 0.6), Phase("backward", window * 4 / 10, 0.4)});
    if (rank == 7 || rank == 12) phases.dropped = 2;
    report.phases.push_back(phases);
  }
  // Only the earliest start (rank 0's, 1 ms) and the latest end (rank 22's) matter here.
  steps.full_steps = {FullStep(2, kMs, 10 * kMs + 39 * 10 * kUs + 22 * kUs, 22, 0)};
  steps.median_step_ns = steps.full_steps.front().duration_ns;
  report.steps = steps;
  return report;
}

}  // namespace vprof::reporter::testing
