// Steps under a deep schedule (VPROF_DEEP): only the steps a deep window held
// whole are analyzed; the rest are counted, and the NVTX steps' durations on
// both sides say what deep capture added. Records are built in memory as the
// capture side writes them; times are ns.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "records_of.h"
#include "reporter/base/units.h"
#include "reporter/steps/deep_capture.h"
#include "reporter/steps/step_tracker.h"
#include "scratch_dir.h"
#include "step_trace.h"

using namespace vprof::reporter;
using vprof::reporter::testing::ScratchDir;
using vprof::reporter::testing::StepTrace;

namespace {

enum Iid : uint64_t { kStep = 1, kLaunch, kGemm };
const std::map<uint64_t, std::string> kNames = {
    {kStep, "train_step"}, {kLaunch, "cudaLaunchKernel"}, {kGemm, "sm90_xmma_gemm_f16f16_f32"}};

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kShallowStepNs = 20 * kMs;  // outside the windows
constexpr int64_t kDeepStepNs = 30 * kMs;     // inside: deep capture's cost on top

vprof::trace::RunHeader HeaderWithSchedule(const std::string& schedule) {
  vprof::trace::RunHeader header;
  header.mutable_settings()->set_deep_capture(schedule);
  return header;
}

vprof::trace::DeepWindow Window(int64_t start, int64_t end) {
  vprof::trace::DeepWindow window;
  window.set_start_ns(static_cast<uint64_t>(start));
  window.set_end_ns(static_cast<uint64_t>(end));
  window.set_cause(vprof::trace::DEEP_WINDOW_DUTY_CYCLE);
  return window;
}

// One NVTX step [start, start + length) with one kernel launched 1 ms into it
// when `with_kernel` (GPU records exist only inside deep windows).
void AddStep(vprof::trace::NvtxBatch& ranges, vprof::trace::GpuBatch& work, int64_t start,
             int64_t length, bool with_kernel) {
  vprof::trace::NvtxRange& range = *ranges.add_range();
  range.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
  range.set_name_iid(kStep);
  range.set_start_ns(static_cast<uint64_t>(start));
  range.set_end_ns(static_cast<uint64_t>(start + length));
  if (!with_kernel) return;
  const auto correlation = static_cast<uint32_t>(work.kernel_size() + 1);
  vprof::trace::ApiCall& api = *work.add_api();
  api.set_name_iid(kLaunch);
  api.set_start_ns(static_cast<uint64_t>(start + kMs));
  api.set_duration_ns(5);
  api.set_tid(1);
  api.set_correlation_id(correlation);
  vprof::trace::GpuKernel& kernel = *work.add_kernel();
  kernel.set_name_iid(kGemm);
  kernel.set_start_ns(static_cast<uint64_t>(start + 2 * kMs));
  kernel.set_duration_ns(static_cast<uint64_t>(kMs));
  kernel.set_stream(7);
  kernel.set_correlation_id(correlation);
}

// Three 20 ms steps before a window [100, 170] ms, two 30 ms steps inside it,
// and a 20 ms step that starts inside and ends after it (cut by the edge).
ProcessSteps TrackDutyCycle(const std::string& schedule) {
  const StepPatterns patterns;
  StepTracker tracker([](uint64_t iid) { return kNames.at(iid); }, patterns);
  tracker.AddEnvironment(HeaderWithSchedule(schedule));
  vprof::trace::NvtxBatch ranges;
  vprof::trace::GpuBatch work;
  for (int i = 0; i < 3; ++i) AddStep(ranges, work, i * 25 * kMs, kShallowStepNs, false);
  tracker.AddDeepWindow(Window(100 * kMs, 0));  // opened
  AddStep(ranges, work, 101 * kMs, kDeepStepNs, true);
  AddStep(ranges, work, 135 * kMs, kDeepStepNs, true);
  tracker.AddDeepWindow(Window(100 * kMs, 170 * kMs));  // closed
  AddStep(ranges, work, 166 * kMs, kShallowStepNs, true);
  tracker.AddNvtxBatch(ranges);
  tracker.AddGpuBatch(vprof::reporter::testing::RecordsOf(work));
  return tracker.Finish();
}

bool WithinHalfPercent(int64_t value, int64_t expected) {
  return std::abs(static_cast<double>(value - expected)) <= 0.005 * static_cast<double>(expected);
}

TEST_CASE("only steps a deep window holds whole are analyzed; the others are counted") {
  const ProcessSteps steps = TrackDutyCycle("0.07/1");
  REQUIRE(steps.nvtx.size() == 2);
  CHECK(steps.nvtx.shallow() == 4);
  // The analyzed steps are the two inside, each with its kernel's 1 ms of compute.
  CHECK(steps.nvtx.rows()[0].range_start_ns == 101 * kMs);
  CHECK(steps.nvtx.rows()[1].range_start_ns == 135 * kMs);
  CHECK(steps.nvtx.rows()[0].step.times.compute_ns == kMs);
  CHECK(steps.deep_windows == 1);
  const std::optional<DeepCaptureReport> deep = DeepCaptureOf(steps, steps.nvtx);
  REQUIRE(deep);
  CHECK(deep->schedule == "0.07/1");
  CHECK(deep->shallow_steps == 4);
  REQUIRE(deep->deep_median_ns);
  REQUIRE(deep->shallow_median_ns);
  CHECK(WithinHalfPercent(*deep->deep_median_ns, kDeepStepNs));
  CHECK(WithinHalfPercent(*deep->shallow_median_ns, kShallowStepNs));
}

TEST_CASE("a whole-run capture analyzes every step and reports no deep capture") {
  const ProcessSteps steps = TrackDutyCycle("always");
  CHECK(steps.nvtx.size() == 6);
  CHECK(steps.nvtx.shallow() == 0);
  CHECK_FALSE(DeepCaptureOf(steps, steps.nvtx));
}

TEST_CASE("the deep-capture sentence states the windows, the steps and the cost per step") {
  StepsReport report;
  // Two ranks: inside 30 and 32 ms, outside 20 ms; the lower medians over the
  // ranks are 30 and 20 ms, so deep capture added 10 ms, half the step.
  for (const int64_t inside : {kDeepStepNs, 32 * kMs}) {
    RankStepsReport& rank = report.ranks.emplace_back();
    rank.steps_found = 2;
    rank.deep_capture = DeepCaptureReport{"5/60", 3, 4, inside, kShallowStepNs};
  }
  const std::string sentence = DeepCaptureSentence(report);
  INFO(sentence);
  CHECK(
      sentence.starts_with("VPROF_DEEP=5/60: GPU activity only in 3 deep windows; 4 steps "
                           "analyzed over the ranks, 8 outside the windows left out"));
  CHECK(sentence.find("median step " + FormatDurationNs(kDeepStepNs) + " inside the windows, " +
                      FormatDurationNs(kShallowStepNs) + " outside") != std::string::npos);
  CHECK(sentence.find("added about " + FormatDurationNs(10 * kMs) + " (+" + FormatPercent(0.5) +
                      ") to each analyzed step: the cost of recording the windows' GPU "
                      "activity") != std::string::npos);
  // A process whose windows held none of its steps is not among the ranks;
  // its steps are counted with those left out, and it is named.
  report.deep_without_steps.push_back(DeepCaptureReport{"5/60", 5, 6, std::nullopt, std::nullopt});
  CHECK(DeepCaptureSentence(report).starts_with(
      "VPROF_DEEP=5/60: GPU activity only in 5 deep windows; 4 steps analyzed over the ranks, 14 "
      "outside the windows left out (6 of them in 1 process whose windows held no whole step); "
      "median step"));
  report.deep_without_steps.clear();
  // Without NVTX steps on both sides the cost is not known, and said so.
  report.ranks[0].deep_capture->shallow_median_ns.reset();
  report.ranks[1].deep_capture->deep_median_ns.reset();
  CHECK(DeepCaptureSentence(report).find("is not known") != std::string::npos);
  report.ranks.clear();
  CHECK(DeepCaptureSentence(report).empty());
}

TEST_CASE("windows shorter than a step: no steps, and the problem says why") {
  // Steps of 900 µs every 1,000 µs; windows [s, s + 300) open 100 µs into
  // steps 1 and 3 (each holding that step's kernel), or, for the control, one
  // window holds steps 1 and 2 whole.
  for (const bool short_windows : {true, false}) {
    ScratchDir dir;
    StepTrace trace("node1", 100, 0);
    if (short_windows) {
      trace.DeepSchedule("0.3/2");
      trace.DeepWindow(1100, 1400);
      trace.DeepWindow(3100, 3400);
    } else {
      trace.DeepSchedule("2/5");
      trace.DeepWindow(950, 2950);
    }
    for (int64_t step = 0; step < 5; ++step) {
      const int64_t at = step * 1000;
      trace.Range("train_step", at, at + 900);
      const bool in_window = short_windows ? step == 1 || step == 3 : step == 1 || step == 2;
      if (in_window) trace.Kernel("fwd_kernel", 7, at + 150, at + 200, at + 250);
    }
    trace.WriteTo(dir.File("rank0.vtrace"));
    const std::optional<StepsReport> steps =
        vprof::reporter::testing::StepReportOf(dir.path(), 0).steps;
    REQUIRE(steps);
    INFO("problem: " << steps->problem);
    if (short_windows) {
      CHECK(steps->ranks.empty());
      CHECK(steps->source == StepSource::kNvtx);
      CHECK(steps->problem ==
            "VPROF_DEEP=0.3/2: no deep window held a whole step (2 deep windows, 5 steps outside "
            "them left out), and only the steps a window holds are analyzed; a window must be "
            "longer than a step (VPROF_DEEP's ON, or vprof trigger --seconds)");
    } else {
      REQUIRE(steps->ranks.size() == 1);
      CHECK(steps->ranks[0].steps.size() == 2);
      CHECK(steps->problem.empty());
    }
  }
  CHECK(NoStepHeldProblem({}).empty());
  CHECK(
      NoStepHeldProblem({DeepCaptureReport{"trigger", 0, 0, std::nullopt, std::nullopt}}).empty());
}

TEST_CASE("no GPU kernel under a deep schedule: the problem says whether a window opened") {
  // NVTX steps and no kernel records: a whole-run capture, or one whose GPU
  // capture was off, reports no steps at all; a deep one says why it has none.
  enum class Deep { kAlways, kCaptureOff, kNoWindow, kEmptyWindow };
  for (const Deep deep : {Deep::kAlways, Deep::kCaptureOff, Deep::kNoWindow, Deep::kEmptyWindow}) {
    ScratchDir dir;
    StepTrace trace("node1", 100, 0);
    trace.CaptureState(deep == Deep::kCaptureOff ? vprof::trace::GPU_CAPTURE_UNAVAILABLE
                                                 : vprof::trace::GPU_CAPTURE_ACTIVE);
    if (deep != Deep::kAlways) trace.DeepSchedule("trigger");
    if (deep == Deep::kEmptyWindow) trace.DeepWindow(5000, 6000);
    for (int64_t step = 0; step < 3; ++step)
      trace.Range("train_step", step * 1000, step * 1000 + 900);
    trace.WriteTo(dir.File("rank0.vtrace"));
    const std::optional<StepsReport> steps =
        vprof::reporter::testing::StepReportOf(dir.path(), 0).steps;
    if (deep == Deep::kAlways || deep == Deep::kCaptureOff) {
      CHECK_FALSE(steps);
      continue;
    }
    REQUIRE(steps);
    CHECK(steps->ranks.empty());
    CHECK(steps->problem ==
          (deep == Deep::kNoWindow
               ? "VPROF_DEEP=trigger: no deep window opened, and GPU activity is recorded only "
                 "inside one (windows open in the processes that initialised CUDA; vprof trigger "
                 "DIR opens one in all of them)"
               : "VPROF_DEEP=trigger: the 1 deep window held no GPU kernel, and GPU activity is "
                 "recorded only inside deep windows"));
  }
}

}  // namespace

TEST_CASE("a process whose windows held only inferred steps is not named as holding none") {
  // Rank 0: NVTX steps, the window [950, 2950] holds steps 1 and 2, so NVTX is
  // the source. Rank 1 marks no NVTX step: its steps are inferred (20 forward
  // kernels, then Adam), and the same window holds its steps 1 and 2 of 6. It
  // is left out of an NVTX report, as any rank without NVTX steps is, but its
  // windows did hold steps: not among deep_without_steps.
  ScratchDir dir;
  for (const int32_t rank : {0, 1}) {
    StepTrace trace("node1", 100 + static_cast<uint32_t>(rank), rank);
    trace.DeepSchedule("2/5");
    trace.DeepWindow(950, 2950);
    for (int64_t step = 0; step < 6; ++step) {
      const int64_t at = step * 1000;
      if (rank == 0) {
        trace.Range("train_step", at, at + 900);
        trace.Kernel("fwd_kernel", 7, at + 100, at + 150, at + 200);
        continue;
      }
      for (int64_t i = 0; i < 20; ++i) {
        trace.Kernel("fwd_kernel", 7, at + 10 + 10 * i, at + 15 + 10 * i, at + 18 + 10 * i);
      }
      trace.Kernel(vprof::reporter::testing::kAdamKernel, 7, at + 300, at + 310, at + 320);
    }
    trace.WriteTo(dir.File("rank" + std::to_string(rank) + ".vtrace"));
  }
  const std::optional<StepsReport> steps =
      vprof::reporter::testing::StepReportOf(dir.path(), 0).steps;
  REQUIRE(steps);
  CHECK(steps->source == StepSource::kNvtx);
  REQUIRE(steps->ranks.size() == 1);
  CHECK(steps->ranks[0].steps_found == 2);
  CHECK(steps->deep_without_steps.empty());
}
