// The Summary on the hand-built sample report: each line's figures against
// the sample's own numbers (sample_report.cc), the top three candidates in
// rank order, and the capture's health counted over the processes.
#include <catch2/catch.hpp>

#include "../render/sample_report.h"
#include "reporter/summary/report_summary.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

const SummaryLine& Line(const ReportSummary& summary, std::string_view label) {
  for (const SummaryLine& line : summary.lines) {
    if (line.label == label) return line;
  }
  FAIL("no summary line " << label);
  throw;
}

bool HasLine(const ReportSummary& summary, std::string_view label) {
  for (const SummaryLine& line : summary.lines) {
    if (line.label == label) return true;
  }
  return false;
}

bool Contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the summary gives the step, where it goes, the top candidates and the health") {
  const ReportSummary summary = SummarizeReport(SampleReport());
  CHECK(summary.lines.size() <= 12);

  const SummaryLine& step = Line(summary, "Step");
  CHECK(Contains(step.text, "2 full steps measured"));
  CHECK(Contains(step.text, "median 10.0 ms"));
  CHECK(Contains(step.text, "longest 10.0 ms (step 3)"));  // both 10 ms: the first
  CHECK(step.section_id == "full-steps");

  // Rank 0 is the slowest in both full steps: its 20 ms over 2 steps is 12
  // compute (60%), 4 exposed (20%), 2 copy (10%), 2 idle; overlapped 6 (30%).
  REQUIRE(summary.shares);
  CHECK(summary.shares->rank == 0);
  CHECK(summary.shares->slowest_in == 2);
  CHECK(summary.shares->window_ns == 10'000'000);
  CHECK(summary.shares->compute_ns == 6'000'000);
  const SummaryLine& shares = Line(summary, "Where the step goes");
  CHECK(Contains(shares.text, "rank 0 (the slowest in 2 steps), 10.0 ms of GPU window per step"));
  CHECK(Contains(shares.text, "compute 60.0%, exposed communication 20.0%, copies 10.0%"));
  CHECK(Contains(shares.text, "communication under compute 30.0%"));

  // The three candidates, in rank order, with time per step, scope and tag.
  CHECK(Contains(Line(summary, "Candidate 1").text,
                 "tp_communication: 2.85 ms per step (28.5% of the step), full_step, "
                 "strict needs_contract"));
  CHECK(Contains(Line(summary, "Candidate 2").text, "launch_bound_kernels"));
  CHECK(Contains(Line(summary, "Candidate 3").text, "weight_sync: 500 µs per step"));
  CHECK_FALSE(HasLine(summary, "Candidate 4"));

  CHECK(Line(summary, "Capture").text ==
        "2 traces from 2 hosts, all whole; 0 records dropped; coverage not checked");
  CHECK_FALSE(HasLine(summary, "Straggler"));  // the sample has no Ranks table
  CHECK(Contains(Line(summary, "vprof's own cost").text, "not measured"));
}

TEST_CASE("the verdict names compute as the bound where it is larger than the waste ranked first") {
  const auto full_step = [](std::string kind, std::string title, int64_t ns, double share,
                            std::string phase) {
    CandidateReport candidate;
    candidate.kind = std::move(kind);
    candidate.title = std::move(title);
    candidate.scope = CandidateScope::kFullStep;
    candidate.exposed_ns = ns;
    candidate.step_share = share;
    candidate.phase = std::move(phase);
    return candidate;
  };
  Report report = SampleReport();
  report.candidates = {
      full_step("host_idle", "GPU idle until the host launched the next work", 952'000, 0.13,
                "optimizer"),
      full_step("compute", "GPU compute: the kernels themselves", 6'110'000, 0.834, "backward")};
  report.candidates[1].rank = 0;
  CHECK(Line(SummarizeReport(report), "Verdict").text ==
        "GPU compute bounds the step: 6.11 ms per step on rank 0, 83.4% of the step, most in "
        "backward; the waste to fix first: GPU idle until the host launched the next work, 952 "
        "µs per step, 13.0% of the step, most in optimizer");
  // Where the waste is the larger part, it is what bounds the step.
  report.candidates[0].step_share = 0.9;
  CHECK(Line(SummarizeReport(report), "Verdict").text ==
        "GPU idle until the host launched the next work bounds the step: 952 µs per step, 90.0% "
        "of the step, most in optimizer");
}

TEST_CASE("the summary names the longest step") {
  Report report = SampleReport();
  report.steps->full_steps[1].duration_ns = 70'000'000;
  CHECK(Contains(Line(SummarizeReport(report), "Step").text, "longest 70.0 ms (step 4)"));
}

TEST_CASE("the summary counts dropped records, cut traces and gaps, and names the late rank") {
  Report report = SampleReport();
  report.processes[0].dropped_events = 3;
  report.processes[1].gpu.dropped_records = 4;
  report.phases[0].dropped = 2;
  report.processes[1].state = InputState::kCut;
  report.coverage = CoverageReport{{}, {CoverageGap{}, CoverageGap{}}};
  report.ranks = {{0, "rank0.vtrace", 30, 5, 100'000, 0, {}},
                  {1, "rank1.vtrace", 30, 25, 900'000, 0, {}}};
  const ReportSummary summary = SummarizeReport(report);
  CHECK(summary.dropped_records == 9);
  CHECK(summary.traces_not_whole == 1);
  CHECK(summary.coverage_gaps == 2);
  CHECK(Line(summary, "Capture").text ==
        "2 traces from 2 hosts, 1 cut or unreadable; 9 records dropped; 2 coverage gaps");
  CHECK(Line(summary, "Straggler").text ==
        "rank 1 entered last at 25 of its 30 collectives, where chance gives 15 (one-sided "
        "binomial p = 0.000162) (host call times), mean lateness 900 µs");
}

TEST_CASE("without steps the summary says so and still lists the candidates") {
  Report report = SampleReport();
  report.steps.reset();
  const ReportSummary summary = SummarizeReport(report);
  CHECK(Line(summary, "Step").text == "no steps: no process has GPU kernel records");
  CHECK_FALSE(summary.shares);
  CHECK(HasLine(summary, "Candidate 3"));
}

TEST_CASE(
    "the summary gives the highest memory peak, the most allocation time, the ranks without") {
  Report report = SampleReport();
  REQUIRE(report.steps);
  REQUIRE(report.steps->ranks.size() == 2);
  CHECK_FALSE(HasLine(SummarizeReport(report), "GPU memory"));  // the sample records none
  // Rank 0: steps 3 and 4 (indexes 2 and 3) peak at 3 GiB and 5 GiB, one allocation each taking 2
  // and 4 ms (3 ms a step); rank 1 has no memory figures.
  constexpr int64_t kGiB = int64_t{1} << 30;
  std::vector<RankStepReport>& steps = report.steps->ranks[0].steps;
  REQUIRE(steps.size() == 2);
  steps[0].memory = StepMemory{2 * kGiB, 3 * kGiB, 2 * kGiB, 1, 1, kGiB, kGiB, 2'000'000};
  steps[1].memory = StepMemory{2 * kGiB, 5 * kGiB, 2 * kGiB, 1, 1, kGiB, kGiB, 4'000'000};
  const ReportSummary summary = SummarizeReport(report);
  const SummaryLine& line = Line(summary, "GPU memory");
  CHECK(line.text ==
        "peak 5.00 GiB held from CUDA (rank 0, step 4); per step 1 allocations and 3.00 ms in "
        "allocation calls (rank 0, the most); no "
        "memory figures for 1 ranks (rank 1)");
  CHECK(line.section_id == "segments");

  // Phases: backward's spans held the 5 GiB peak in its step; forward's as much, but in
  // the other step (its held figure there is what the summary must not name).
  report.steps->ranks[0].phase_memory = {
      {"backward", true, 2, PhaseMemoryReport::Held{5 * kGiB, steps[1].step, 2 * kGiB},
       std::nullopt},
      {"forward", true, 2, PhaseMemoryReport::Held{5 * kGiB, steps[0].step, 2 * kGiB},
       std::nullopt}};
  CHECK(Line(SummarizeReport(report), "GPU memory")
            .text.starts_with("peak 5.00 GiB held from CUDA (rank 0, step 4, in backward); "));
}

TEST_CASE("the summary says why vprof's cost was not measured where the calibration failed") {
  Report report = SampleReport();
  REQUIRE(report.processes.size() >= 2);
  GpuCaptureReport failed;
  failed.launch_cost = LaunchCostReport{};
  failed.launch_cost->failure = "a deep window was being switched";
  GpuCaptureReport measured;
  measured.launch_cost = LaunchCostReport{};
  measured.launch_cost->bare_launch_ns = 2000;
  measured.launch_cost->traced_launch_ns = 3000;
  report.processes[0].gpu.capture = failed;
  report.processes[1].gpu.capture = measured;
  CHECK(Line(SummarizeReport(report), "vprof's own cost").text ==
        "not measured: the calibration at the first CUDA context failed in 1 of 2 GPU processes: "
        "a deep window was being switched");
  report.processes[1].gpu.capture.reset();
  CHECK(Contains(Line(SummarizeReport(report), "vprof's own cost").text,
                 "failed in 1 of 1 GPU process: a deep"));
  report.processes[0].gpu.capture = measured;
  CHECK(Contains(Line(SummarizeReport(report), "vprof's own cost").text,
                 "not measured by this capture"));
}

TEST_CASE("the summary says which part of the run the steps describe when they hold little") {
  Report report = SampleReport();
  // Rank 0's two measured steps are busy 18 ms (20 less 2 idle); rank 1's 17.1 ms.
  report.processes[0].gpu.kernels.total_ns = 30 * 1'000'000;
  report.processes[1].gpu.kernels.total_ns = 20 * 1'000'000;
  CHECK_FALSE(HasLine(SummarizeReport(report), "Outside the steps"));  // 60% and 85.5%

  // 100 ms of rank 0's GPU time in CUDA-graph replays recorded whole, outside every step.
  report.processes[0].gpu.graph_replays.total_ns = 100 * 1'000'000;
  const ReportSummary summary = SummarizeReport(report);
  const SummaryLine& line = Line(summary, "Outside the steps");
  INFO(line.text);
  CHECK(
      line.text.starts_with("the measured steps hold 13.8% of rank 0's GPU time over the run "
                            "(18.0 ms of 130 ms): every figure here describes that part only; "
                            "most of the rest is CUDA-graph replays recorded whole (100 ms)"));
}

TEST_CASE("where the step goes: a cause's parts that name the same thing are one part") {
  // Waits for rank 3 in two phases and at two roles, a wait for rank 0, and transfers of one
  // role in two phases: each named once, summed, the largest first.
  Report report = SampleReport();
  REQUIRE(report.steps);
  StepsReport& steps = *report.steps;
  REQUIRE(steps.ranks.size() >= 2);
  steps.ranks[1].rank = 3;
  StepsLedger ledger;
  ledger.steps = 4;
  ledger.mean_step_ns = 1000;
  ledger.ledger_steps.assign(steps.ranks.size(), 0);
  ledger.ledger_steps[0] = 4;
  const auto wait = [](uint32_t late, std::string phase, CommRole role, double share) {
    LedgerLine line{LedgerCause::kWaitForRank, role, std::move(phase), late, 0, share};
    return line;
  };
  LedgerLine transfer_bwd{
      LedgerCause::kTransfer, CommRole::kGradientBuckets, "backward", {}, 0, 0.10};
  LedgerLine transfer_opt{
      LedgerCause::kTransfer, CommRole::kGradientBuckets, "optimizer", {}, 0, 0.05};
  ledger.lines = {wait(1, "backward", CommRole::kGradientBuckets, 0.20), transfer_bwd,
                  wait(0, "forward", CommRole::kGradientBuckets, 0.08), transfer_opt,
                  wait(1, "optimizer", CommRole::kWeightSync, 0.07)};
  steps.ledger = ledger;
  const std::string text = Line(SummarizeReport(report), "Where the step goes").text;
  CHECK(Contains(text, "waiting for a late rank 35.0% (for rank 3 27.0%, for rank 0 8.0%)"));
  CHECK(Contains(text, "transfer 15.0% (gradient buckets 15.0%)"));
}

TEST_CASE("where the step goes: a step that moves the mean by itself is named with what it adds") {
  // Five full steps of 10 ms and one of 70 ms (a compile step): the median is 10 ms, the mean
  // 20 ms, and the long step adds (70 - 10) / 6 = 10 ms of it, more than a twentieth.
  Report report = SampleReport();
  REQUIRE(report.steps);
  StepsReport& steps = *report.steps;
  REQUIRE(!steps.full_steps.empty());
  const FullStepReport first = steps.full_steps.front();
  steps.full_steps.clear();
  for (uint32_t i = 0; i < 6; ++i) {
    FullStepReport step = first;
    step.step = first.step + i;
    step.duration_ns = i == 2 ? 70'000'000 : 10'000'000;
    steps.full_steps.push_back(step);
  }
  steps.median_step_ns = 10'000'000;
  StepsLedger ledger;
  ledger.steps = 6;
  ledger.mean_step_ns = 20'000'000;
  ledger.ledger_steps.assign(steps.ranks.size(), 0);
  ledger.ledger_steps[0] = 6;
  ledger.lines = {{LedgerCause::kCompute, CommRole::kGradientBuckets, "backward", {}, 0, 1.0}};
  steps.ledger = ledger;
  const std::string long_step = std::to_string(StepNumber(steps, first.step + 2));
  CHECK(Contains(Line(SummarizeReport(report), "Where the step goes").text,
                 "; step " + long_step +
                     " alone (70.0 ms, the median 10.0 ms) adds 10.0 ms to "
                     "this mean"));

  // Not the first measured step: no warmup to suggest.
  CHECK_FALSE(Contains(Line(SummarizeReport(report), "Where the step goes").text, "--warmup"));

  // The first measured step, right after the warmup, as a step that compiles is: the option
  // that leaves it out is named, one more step of warmup. The sample's first full step is the
  // third found (index 2): 2 steps of warmup, then --warmup 3; or, with the first step found
  // dropped before cudaProfilerStart, 1 of warmup, then --warmup 2.
  REQUIRE(first.step == 2);
  std::swap(steps.full_steps[0].duration_ns, steps.full_steps[2].duration_ns);
  steps.first_measured = 2;
  steps.warmup_steps = 2;
  const std::string first_long = "; step " + std::to_string(StepNumber(steps, 2)) +
                                 " alone (70.0 ms, the median 10.0 ms) adds 10.0 ms to this "
                                 "mean: the first measured step; --warmup ";
  CHECK(Contains(Line(SummarizeReport(report), "Where the step goes").text,
                 first_long + "3 leaves it out"));
  steps.warmup_steps = 1;
  CHECK(Contains(Line(SummarizeReport(report), "Where the step goes").text,
                 first_long + "2 leaves it out"));
  std::swap(steps.full_steps[0].duration_ns, steps.full_steps[2].duration_ns);

  // At 12 ms the long step adds 2 / 6 = 0.33 ms to a mean of 10.33 ms: less than a twentieth,
  // not named.
  steps.full_steps[2].duration_ns = 12'000'000;
  steps.ledger->mean_step_ns = 10'333'333;
  CHECK_FALSE(Contains(Line(SummarizeReport(report), "Where the step goes").text, "alone"));
}
