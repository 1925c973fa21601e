// The step store keeps a row per step, and the rest of each step's result
// in detail only for its first steps: whatever step the measured window
// starts at within those, the sums it gives equal those of the steps
// themselves, computed here one by one.
#include <catch2/catch.hpp>

#include "reporter/steps/step_store.h"

using namespace vprof::reporter;

namespace {

StepSpan Span(uint32_t correlation, uint64_t name_iid, int64_t duration, int64_t exposed) {
  StepSpan span;
  span.correlation_id = correlation;
  span.name_iid = name_iid;
  span.start_ns = 1000 * correlation;
  span.duration_ns = duration;
  span.exposed_ns = exposed;
  return span;
}

// Step k: a window of 100 + k ns, compute k ns on stream 7, a "forward"
// phase of 10 + k ns and, on odd steps, a "backward" phase of 3 ns; the
// exposed communication span's figure repeats with period 7, the idle gap's
// with period 5, so that ties (the first largest wins) and later maxima both
// occur.
StepResult StepNumber(uint32_t k) {
  StepResult step;
  step.range_start_ns = 1000 * k;
  step.start_ns = 1000 * k + 5;
  step.end_ns = step.start_ns + 100 + k;
  step.times.window_ns = 100 + k;
  step.times.compute_ns = k;
  step.times.exposed_by_reason_ns[ExposureReason::kSameStream] = k % 3;
  step.buckets.push_back({0, NcclFunction::kAllReduce, 0xA, 4096u * (k + 1), 1, 2, 3});
  step.streams.push_back({7, 2, 1, 0, static_cast<int64_t>(k)});
  SegmentTimes forward;
  forward.window_ns = 10 + k;
  step.phases.emplace_back("forward", forward);
  if (k % 2 == 1) {
    SegmentTimes backward;
    backward.window_ns = 3;
    step.phases.emplace_back("backward", backward);
  }
  step.longest_exposed_comm = Span(k, 100 + k, 50, k % 7);
  step.longest_idle_gap = Span(k, 0, k % 5, 0);
  return step;
}

struct Expected {
  std::map<std::string, int64_t> phase_window_ns;
  int64_t stream_busy_ns = 0;
  uint64_t stream_kernels = 0;
  std::optional<uint32_t> exposed_step;  // the first step with the largest figure
  std::optional<uint32_t> idle_step;
};

Expected ExpectedFrom(uint32_t first, uint32_t steps) {
  Expected expected;
  int64_t exposed = 0;
  int64_t idle = 0;
  for (uint32_t k = first; k < steps; ++k) {
    expected.phase_window_ns["forward"] += 10 + k;
    if (k % 2 == 1) expected.phase_window_ns["backward"] += 3;
    expected.stream_busy_ns += k;
    expected.stream_kernels += 3;
    if (k % 7 > exposed) {
      exposed = k % 7;
      expected.exposed_step = k;
    }
    if (k % 5 > idle) {
      idle = k % 5;
      expected.idle_step = k;
    }
  }
  return expected;
}

void CheckDetail(const StepDetail& detail, const Expected& expected) {
  std::map<std::string, int64_t> phase_window_ns;
  for (const auto& [phase, times] : detail.phases) phase_window_ns[phase] = times.window_ns;
  CHECK(phase_window_ns == expected.phase_window_ns);
  REQUIRE(detail.streams.size() == (expected.stream_kernels > 0 ? 1u : 0u));
  if (expected.stream_kernels > 0) {
    const StepStreamUse& use = detail.streams.at(7);
    CHECK(use.busy_ns == expected.stream_busy_ns);
    CHECK(use.compute_kernels + use.comm_kernels == expected.stream_kernels);
  }
  REQUIRE(detail.longest_exposed_comm.has_value() == expected.exposed_step.has_value());
  if (expected.exposed_step) {
    CHECK(detail.longest_exposed_comm->correlation_id == *expected.exposed_step);
    CHECK(detail.longest_exposed_comm->name ==
          "kernel " + std::to_string(100 + *expected.exposed_step));
  }
  REQUIRE(detail.longest_idle_gap.has_value() == expected.idle_step.has_value());
  if (expected.idle_step) {
    CHECK(detail.longest_idle_gap->correlation_id == *expected.idle_step);
    CHECK(detail.longest_idle_gap->name == "memcpy/memset");
  }
}

}  // namespace

TEST_CASE("The store's sums from any step kept in detail equal the steps' own") {
  constexpr uint32_t kSteps = 40;
  constexpr uint32_t kDetailed = 12;
  StepStore store;
  store.KeepDetailOfFirst(kDetailed);
  for (uint32_t k = 0; k < kSteps; ++k) store.Add(StepNumber(k));
  store.NameSpans([](uint64_t iid) { return "kernel " + std::to_string(iid); });

  REQUIRE(store.size() == kSteps);
  for (uint32_t k = 0; k < kSteps; ++k) {
    const StepRow& row = store.rows()[k];
    CHECK(row.range_start_ns == 1000 * k);
    CHECK(row.step.step == k);
    CHECK(row.step.end_ns - row.step.start_ns == 100 + k);
    CHECK(row.step.times.compute_ns == k);
    CHECK(row.step.buckets.at(0).bytes == 4096u * (k + 1));
  }
  for (uint32_t first = 0; first <= kDetailed; ++first) {
    INFO("measured from step " << first);
    const std::optional<StepDetail> detail = store.DetailFrom(first);
    REQUIRE(detail.has_value());
    CheckDetail(*detail, ExpectedFrom(first, kSteps));
  }
  // Past the detailed steps, the summed rest would count steps before the
  // window: the store says it cannot tell.
  CHECK_FALSE(store.DetailFrom(kDetailed + 1).has_value());
}

TEST_CASE("A store with no more steps than it keeps in detail gives sums from any step") {
  StepStore store;
  store.KeepDetailOfFirst(8);
  for (uint32_t k = 0; k < 5; ++k) store.Add(StepNumber(k));
  store.NameSpans([](uint64_t iid) { return "kernel " + std::to_string(iid); });
  for (uint32_t first = 0; first <= 7; ++first) {
    INFO("measured from step " << first);
    const std::optional<StepDetail> detail = store.DetailFrom(first);
    REQUIRE(detail.has_value());
    CheckDetail(*detail, ExpectedFrom(first, 5));
  }
  const std::deque<StepRow> rows = store.TakeRows();
  CHECK(rows.size() == 5);
  CHECK(rows.back().step.times.window_ns == 104);
}
