// The step collectors keep only the steps still open, however long the
// trace: memory does not grow with its length.
#include <catch2/catch.hpp>

#include "reporter/steps/nvtx_step_collector.h"
#include "reporter/steps/optimizer_step_collector.h"

using namespace vprof::reporter;

namespace {

GpuWork Work(uint32_t correlation, int64_t launch, int64_t start, int64_t end, bool optimizer) {
  GpuWork work;
  work.correlation_id = correlation;
  work.launch_ns = launch;
  work.start_ns = start;
  work.end_ns = end;
  work.optimizer = optimizer;
  return work;
}

}  // namespace

TEST_CASE("NVTX steps stay open until the open-step cap, then the oldest close") {
  std::vector<ClosedStep> closed;
  NvtxStepCollector collector([&](ClosedStep& step) { closed.push_back(std::move(step)); });
  // Step k: range [1000k, 1000k+500], ten kernels launched at 1000k+10j,
  // running [1000k+100+50j, 1000k+150+50j] (the last ends at 1000k+600,
  // after the range ended: the GPU runs behind).
  uint32_t correlation = 0;
  size_t most_steps = 0;
  size_t most_works = 0;
  for (int64_t k = 0; k < 5000; ++k) {
    const int64_t o = 1000 * k;
    collector.AddRange(o, o + 500);
    for (int64_t j = 0; j < 10; ++j) {
      collector.AddWork(Work(++correlation, o + 10 * j, o + 100 + 50 * j, o + 150 + 50 * j, false));
    }
    most_steps = std::max(most_steps, collector.held_steps());
    most_works = std::max(most_works, collector.held_works());
  }
  // Ten works a step stay far below the work cap (2^18): the open-step cap
  // (4096) closes the oldest, so at most 4096 steps and their 40960 works.
  CHECK(most_steps == 4096);
  CHECK(most_works == 40960);
  collector.Finish();
  REQUIRE(closed.size() == 5000);
  CHECK(closed[7].works.size() == 10);
  CHECK(closed[7].window_start_ns == 7000);
  CHECK(closed[7].window_end_ns == 7600);
  CHECK(collector.late_records() == 0);
}

TEST_CASE("NVTX step windows reach their range's end: back-to-back steps tile the timeline") {
  std::vector<ClosedStep> closed;
  NvtxStepCollector collector([&](ClosedStep& step) { closed.push_back(std::move(step)); });
  // Ranges [100k, 100k+100] back to back (torch.profiler's ProfilerStep#k);
  // step k's one kernel runs [100k+10, 100k+60], except step 1's, which runs
  // past its range into step 2's to 100k+130 = 230.
  for (int64_t k = 0; k < 4; ++k) {
    const int64_t o = 100 * k;
    collector.AddRange(o, o + 100);
    collector.AddWork(
        Work(static_cast<uint32_t>(k + 1), o + 5, o + 10, k == 1 ? 230 : o + 60, false));
  }
  collector.Finish();
  REQUIRE(closed.size() == 4);
  // Step 0 ends at its range's end (100), not at its kernel's (60); step 1 at
  // its kernel's end (230), which step 2's window starts from.
  const std::vector<std::pair<int64_t, int64_t>> windows = {
      {0, 100}, {100, 230}, {230, 300}, {300, 400}};
  for (size_t k = 0; k < 4; ++k) {
    CHECK(closed[k].window_start_ns == windows[k].first);
    CHECK(closed[k].window_end_ns == windows[k].second);
  }
}

TEST_CASE("a ProfilerStep range around train_step ranges is the one step") {
  std::vector<ClosedStep> closed;
  NvtxStepCollector collector([&](ClosedStep& step) { closed.push_back(std::move(step)); });
  collector.AddWork(Work(1, 50, 60, 70, false));  // before any range: waits
  collector.AddRange(40, 90);                     // inner, ends first
  collector.AddRange(0, 100);                     // outer
  collector.Finish();
  REQUIRE(closed.size() == 1);
  CHECK(closed[0].range_start_ns == 0);
  CHECK(closed[0].works.size() == 1);
}

TEST_CASE("optimizer-burst steps hold one step and the reorder window") {
  std::vector<ClosedStep> closed;
  OptimizerStepCollector collector([&](ClosedStep& step) { closed.push_back(std::move(step)); });
  // 5000 steps of 20 kernels then 2 optimizer kernels, 22 launches 1 ns apart.
  uint32_t correlation = 0;
  size_t most = 0;
  for (int64_t k = 0; k < 5000; ++k) {
    for (int64_t j = 0; j < 22; ++j) {
      ++correlation;
      collector.AddWork(Work(correlation, correlation, correlation, correlation + 1, j >= 20));
      most = std::max(most, collector.held_works());
    }
  }
  // The reorder window (4096) plus at most one step and the 17 kernels that closed the previous.
  CHECK(most <= 4096 + 22 + 17);
  collector.Finish();
  REQUIRE(closed.size() == 5000);
  CHECK(closed[10].works.size() == 22);
}

TEST_CASE("a whole-graph replay running the optimizer ends a step by itself") {
  std::vector<ClosedStep> closed;
  OptimizerStepCollector collector([&](ClosedStep& step) { closed.push_back(std::move(step)); });
  // Two eager warm-up steps (20 kernels, then 2 optimizer kernels), then 6 replays of a graph
  // holding a whole step, back to back, then one replay of a graph without the optimizer and
  // 3 eager kernels after it.
  uint32_t correlation = 0;
  auto add = [&](bool optimizer, bool whole_graph, int64_t ns) {
    ++correlation;
    GpuWork work =
        Work(correlation, correlation * 100, correlation * 100, correlation * 100 + ns, optimizer);
    work.whole_graph = whole_graph;
    collector.AddWork(work);
  };
  for (int step = 0; step < 2; ++step) {
    for (int k = 0; k < 22; ++k) add(k >= 20, false, 10);
  }
  // The warm-up's second burst closes at the first replay, which is a step of its own.
  for (int replay = 0; replay < 6; ++replay) add(true, true, 90);
  add(false, true, 90);
  for (int k = 0; k < 3; ++k) add(false, false, 10);
  collector.Finish();
  // 2 warm-up steps and 6 replays; the trailing work ends in no burst, so in no step.
  REQUIRE(closed.size() == 8);
  CHECK(closed[0].works.size() == 22);
  CHECK(closed[1].works.size() == 22);
  for (size_t i = 2; i < 8; ++i) {
    INFO("step " << i);
    REQUIRE(closed[i].works.size() == 1);
    CHECK(closed[i].works[0].whole_graph);
    // Steps tile the timeline: each replay's window starts where the previous step's ended.
    CHECK(closed[i].window_start_ns == closed[i - 1].window_end_ns);
    CHECK(closed[i].window_end_ns == closed[i].works[0].end_ns);
  }
}

TEST_CASE("a whole-graph replay after an optimizer burst ends the burst at once") {
  std::vector<ClosedStep> closed;
  OptimizerStepCollector collector([&](ClosedStep& step) { closed.push_back(std::move(step)); });
  // 5 steps as torch.compile's CUDA graphs run them: a forward replay, a backward replay, then
  // an eager optimizer of 4 kernels; fewer works between bursts than kBurstInterruptions.
  uint32_t correlation = 0;
  for (int step = 0; step < 5; ++step) {
    for (int j = 0; j < 6; ++j) {
      ++correlation;
      GpuWork work =
          Work(correlation, correlation * 100, correlation * 100, correlation * 100 + 50, j >= 2);
      work.whole_graph = j < 2;
      collector.AddWork(work);
    }
  }
  collector.Finish();
  REQUIRE(closed.size() == 5);
  for (const ClosedStep& step : closed) {
    REQUIRE(step.works.size() == 6);
    CHECK((step.works[0].whole_graph && step.works[1].whole_graph));
    CHECK(step.works.back().optimizer);
  }
}

TEST_CASE("many processes share one held-work budget") {
  // The budget is 4 x 2^18 = 2^20 = 1,048,576 works for the whole report.
  CHECK(HeldWorksPerProcess(1) == 262144);     // alone: the per-process maximum, 2^18
  CHECK(HeldWorksPerProcess(4) == 262144);     // 2^20 / 4 = 2^18
  CHECK(HeldWorksPerProcess(8) == 131072);     // 2^20 / 8 = 2^17
  CHECK(HeldWorksPerProcess(16) == 65536);     // 2^20 / 16 = 2^16
  CHECK(HeldWorksPerProcess(1024) == 1024);    // 2^20 / 2^10 = 2^10
  CHECK(HeldWorksPerProcess(100000) == 1024);  // 2^20 / 10^5 = 10: raised to the floor
}

TEST_CASE("a lowered held-work limit closes NVTX steps by work held") {
  std::vector<ClosedStep> closed;
  NvtxStepCollector collector([&](ClosedStep& step) { closed.push_back(std::move(step)); });
  collector.LimitHeldWorks(25);
  // Steps as in the open-step test: range [1000k, 1000k+500], ten kernels each.
  uint32_t correlation = 0;
  size_t most_works = 0;
  for (int64_t k = 0; k < 100; ++k) {
    const int64_t o = 1000 * k;
    collector.AddRange(o, o + 500);
    for (int64_t j = 0; j < 10; ++j) {
      collector.AddWork(Work(++correlation, o + 10 * j, o + 100 + 50 * j, o + 150 + 50 * j, false));
      most_works = std::max(most_works, collector.held_works());
    }
  }
  // The 26th work held (step 2's sixth) passes 25 and closes step 0: held
  // works never pass 25, and 100 steps of 10 works stay whole.
  CHECK(most_works == 25);
  CHECK(collector.held_steps() <= 3);
  collector.Finish();
  REQUIRE(closed.size() == 100);
  CHECK(closed[0].works.size() == 10);
  CHECK(closed[99].works.size() == 10);
  CHECK(collector.late_records() == 0);
  CHECK(collector.any_steps());
}
