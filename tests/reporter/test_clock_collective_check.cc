// The collective clock check: each process's kernel ends against the
// reference process's, fitted to an offset and a drift with an error bound.
// Unit cases feed spans directly; file cases write real traces with a known
// injected offset and drift and read them through BuildReport.
#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "mini_json.h"
#include "report_of.h"
#include "reporter/consistency/clock_collective_check.h"
#include "reporter/render/clock_description.h"
#include "reporter/render/json/json_page.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

CollectiveKernelSpan SpanOf(uint64_t comm_id, uint64_t seq, uint32_t comm_rank, uint32_t comm_size,
                            int64_t end_ns) {
  return CollectiveKernelSpan{OpKey{comm_id, NcclFunction::kAllReduce, BucketOf(4096)},
                              seq,
                              comm_rank,
                              comm_size,
                              end_ns - 50'000,
                              end_ns};
}

// The ±J jitter of collective i: +, −, −, + repeating. Half the collectives
// are +J, half −J, and collectives a multiple of 4 apart have the same: the
// fit pairs collectives half the run apart (a multiple of 4 here), so the
// jitter stays whole in the residuals and out of the offset and drift.
int64_t Jitter(uint64_t i, int64_t amplitude) {
  return (i % 4 == 0 || i % 4 == 3) ? amplitude : -amplitude;
}

constexpr uint64_t kCommId = 0xC0;
constexpr int64_t kStepNs = 100'000'000;    // 0.1 s between the unit tests' collectives
constexpr int64_t kPeriodNs = 200'000'000;  // one collective per 0.2 s: 39.8 s in all
constexpr uint64_t kCollectives = 200;

// One process's trace: one communicator of 2 ranks, three clock samples at
// (realtime − monotonic) = sample_offset ± 100 (median sample_offset, spread
// 200), and kCollectives all-reduces whose kernels end at end_ns(i)
// (monotonic), each launched by its call (call_id = seq = i + 1).
template <typename EndNs>
void WriteProcess(const std::string& path, const std::string& host, int32_t rank,
                  int64_t sample_offset, EndNs end_ns) {
  TraceFileBuilder trace(host, 100 + static_cast<uint32_t>(rank), rank);
  trace.AddCommunicator(kCommId, 2, static_cast<uint32_t>(rank), "ncclCommInitRank");
  const uint64_t first = static_cast<uint64_t>(end_ns(0));
  for (int64_t spread : {-100, 0, 100}) {
    trace.AddClockSample(
        first, static_cast<uint64_t>(static_cast<int64_t>(first) + sample_offset + spread));
  }
  vprof::trace::TracePacket gpu;
  std::vector<vprof::trace::NcclEvent> events;
  for (uint64_t i = 0; i < kCollectives; ++i) {
    const uint64_t end = static_cast<uint64_t>(end_ns(i));
    const auto correlation = static_cast<uint32_t>(i + 1);
    vprof::trace::GpuBatch& batch = *gpu.mutable_gpu_batch();
    vprof::trace::ExternalCorrelation& external = *batch.add_external();
    external.set_external_id(i + 1);
    external.set_correlation_id(correlation);
    vprof::trace::ApiCall& api = *batch.add_api();
    api.set_name_iid(trace.Intern("cudaLaunchKernel"));
    api.set_start_ns(end - 59'000);
    api.set_duration_ns(2'000);
    api.set_correlation_id(correlation);
    vprof::trace::GpuKernel& kernel = *batch.add_kernel();
    kernel.set_name_iid(trace.Intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
    kernel.set_start_ns(end - 50'000);
    kernel.set_duration_ns(50'000);
    kernel.set_correlation_id(correlation);
    vprof::trace::NcclEvent event =
        trace.Event("ncclAllReduce", kCommId, 2, static_cast<uint32_t>(rank), i + 1, 4096,
                    end - 60'000, end - 55'000);
    event.set_call_id(i + 1);
    events.push_back(event);
  }
  trace.AddPacket(std::move(gpu));
  trace.AddBatch(events);
  trace.AddFooter();
  trace.WriteTo(path);
}

const JsonValue& ProcessClockJson(const JsonValue& report, size_t index) {
  return report["time_source"]["processes"][index];
}

JsonValue JsonOf(const Report& report) {
  std::ostringstream out;
  WriteJsonReport(report, out);
  return JsonValue::Parse(out.str());
}

// Collective `seq` of communicator 7 on the reference (process 1), ending at
// `reference_end_ns`, and on process 0, ending `difference_ns` later.
void AddMatched(CollectiveClockCheck& check, uint64_t seq, int64_t reference_end_ns,
                int64_t difference_ns) {
  check.Add(1, SpanOf(7, seq, 1, 2, reference_end_ns));
  check.Add(0, SpanOf(7, seq, 0, 2, reference_end_ns + difference_ns));
}

}  // namespace

TEST_CASE("the fit recovers an offset and a drift, the bound is the residual spread") {
  // Reference (process 1) ends at x_i = 1e9 + i·0.1 s (39.9 s in all, over
  // the 30 s a drift needs); process 0 ends 5000 + 3·i ns later (3 ns per
  // 0.1 s = 30 ns/s) ± 4000 jitter.
  CollectiveClockCheck check(2, 1);
  for (uint64_t i = 0; i < 400; ++i) {
    const int64_t x = 1'000'000'000 + static_cast<int64_t>(i) * kStepNs;
    const int64_t y = 5000 + 3 * static_cast<int64_t>(i) + Jitter(i, 4000);
    // The reference's span comes first on even seqs, last on odd ones.
    if (i % 2 == 0) check.Add(1, SpanOf(7, i, 1, 2, x));
    check.Add(0, SpanOf(7, i, 0, 2, x + y));
    if (i % 2 == 1) check.Add(1, SpanOf(7, i, 1, 2, x));
  }
  const auto estimates = check.Estimates();
  REQUIRE(estimates.size() == 2);
  CHECK_FALSE(estimates[1]);  // the reference has none
  REQUIRE(estimates[0]);
  const CollectiveClockEstimate& estimate = *estimates[0];
  CHECK(estimate.collectives == 400);
  // At the mean time (i = 199.5): 5000 + 3·199.5 = 5598.5, which rounds to 5599.
  CHECK(estimate.offset_ns == 5599);
  CHECK(estimate.at_ns == 1'000'000'000 + 199 * kStepNs + kStepNs / 2);
  CHECK(estimate.span_ns == 399 * kStepNs);
  REQUIRE(estimate.drift_ns_per_s);
  CHECK(*estimate.drift_ns_per_s == Approx(30).margin(0.001));
  // Every residual is ±4000 exactly; the bound is above the 2 µs floor.
  CHECK(estimate.residual_spread_ns == 4000);
  CHECK(estimate.error_bound_ns == 4000);
}

TEST_CASE("late kernel ends in a few collectives move neither the drift nor the offset") {
  // As above, with jitter in five levels (−4000, −2000, 0, 2000, 4000 by
  // 7·i mod 5; collectives 200 apart have the same level), and 17 of the
  // last 100 collectives ending 500 µs late on process 0 (i = 300, 306, …,
  // 396). A least-squares line through these has a drift of 2.4 µs/s and
  // an offset of 26.8 µs; the robust one stays on the 383 others.
  CollectiveClockCheck check(2, 1);
  for (uint64_t i = 0; i < 400; ++i) {
    const int64_t x = 1'000'000'000 + static_cast<int64_t>(i) * kStepNs;
    const int64_t level = static_cast<int64_t>((7 * i) % 5) - 2;
    const bool late = i >= 300 && i % 6 == 0;
    const int64_t y = 5000 + 3 * static_cast<int64_t>(i) + 2000 * level + (late ? 500'000 : 0);
    AddMatched(check, i, x, y);
  }
  const CollectiveClockEstimate estimate = check.Estimates().at(0).value();
  CHECK(estimate.collectives == 400);
  REQUIRE(estimate.drift_ns_per_s);
  CHECK(*estimate.drift_ns_per_s == Approx(30).margin(0.001));
  // At the mean time (i = 199.5) the middle level, 0: 5000 + 3·199.5.
  CHECK(estimate.offset_ns == 5599);
  // Distances from the line: 0 (76 collectives), 2000 (154), 4000 (153),
  // 500 µs (17): the 95th percentile (the 380th of 400) is 4000.
  CHECK(estimate.residual_spread_ns == 4000);
}

TEST_CASE("collectives over less than 30 s: no drift, the offset is the median difference") {
  // 400 collectives 1 ms apart (0.4 s). Process 0 ends 5000 ns later for the
  // first 200 and 3000 ns earlier for the last 200, ±1000 jitter (+, −, −, +):
  // a line would call that step a drift of −40 µs/s.
  CollectiveClockCheck check(2, 1);
  for (uint64_t i = 0; i < 400; ++i) {
    const int64_t x = 1'000'000'000 + static_cast<int64_t>(i) * 1'000'000;
    const int64_t y = (i < 200 ? 5000 : -3000) + Jitter(i, 1000);
    AddMatched(check, i, x, y);
  }
  const CollectiveClockEstimate estimate = check.Estimates().at(0).value();
  CHECK(estimate.span_ns == 399'000'000);
  CHECK_FALSE(estimate.drift_ns_per_s);
  // The differences: 100 each of −4000, −2000, 4000, 6000; the median is
  // between −2000 and 4000.
  CHECK(estimate.offset_ns == 1000);
  // Distances from 1000: 100 each of 5000, 3000, 3000, 5000: the 380th is 5000.
  CHECK(estimate.residual_spread_ns == 5000);
}

TEST_CASE("collectives without the reference and one-rank ones are not counted") {
  CollectiveClockCheck check(3, 0);
  check.Add(1, SpanOf(8, 1, 0, 2, 1000));  // comm 8: processes 1 and 2 only
  check.Add(2, SpanOf(8, 1, 1, 2, 1500));
  check.Add(1, SpanOf(9, 1, 0, 1, 1000));  // a one-rank communicator
  // Comm 10, all three: the reference ends at 2000, 1 at 2300, 2 at 1900.
  check.Add(1, SpanOf(10, 1, 1, 3, 2300));
  check.Add(0, SpanOf(10, 1, 0, 3, 2000));
  check.Add(2, SpanOf(10, 1, 2, 3, 1900));
  const auto estimates = check.Estimates();
  REQUIRE(estimates[1]);
  REQUIRE(estimates[2]);
  CHECK(estimates[1]->collectives == 1);
  CHECK(estimates[1]->offset_ns == 300);
  CHECK(estimates[2]->offset_ns == -100);
  // One collective: no spread, so the bound is the floor.
  CHECK(estimates[2]->residual_spread_ns == 0);
  CHECK(estimates[2]->error_bound_ns == kKernelEndFloorNs);
}

TEST_CASE("collectives the reference never sends are given up beyond the cap") {
  CollectiveClockCheck check(2, 0);
  const uint64_t n = CollectiveClockCheck::kMaxPending + 10;
  for (uint64_t seq = 0; seq < n; ++seq) check.Add(1, SpanOf(3, seq, 1, 2, 100));
  // The oldest were given up: the reference's span of seq 0 finds nothing;
  // the newest still waits and is matched.
  check.Add(0, SpanOf(3, 0, 0, 2, 40));
  check.Add(0, SpanOf(3, n - 1, 0, 2, 70));
  const auto estimates = check.Estimates();
  REQUIRE(estimates[1]);
  CHECK(estimates[1]->collectives == 1);
  CHECK(estimates[1]->offset_ns == 100 - 70);
}

TEST_CASE("spans held for a reference that never comes are capped in number") {
  // 127 processes of a 128-rank communicator send collectives, the reference
  // none: beyond the cap the oldest collectives are given up, so of `n` only
  // the newest `fit` still wait. The communicator is large so that the spans'
  // cap, not the collectives' (kMaxPending), is the one reached.
  constexpr uint32_t kRanks = 128;
  const uint64_t fit = CollectiveClockCheck::kMaxWaitingSpans / (kRanks - 1);
  REQUIRE(fit < CollectiveClockCheck::kMaxPending);
  const uint64_t n = fit + 100;
  CollectiveClockCheck check(kRanks, 0);
  for (uint64_t seq = 0; seq < n; ++seq) {
    for (uint32_t rank = 1; rank < kRanks; ++rank) {
      check.Add(rank, SpanOf(4, seq, rank, kRanks, 500));
    }
  }
  check.Add(0, SpanOf(4, n - fit - 1, 0, kRanks, 100));  // given up: no match
  check.Add(0, SpanOf(4, n - fit, 0, kRanks, 200));      // the oldest still held
  const auto estimates = check.Estimates();
  for (size_t process = 1; process < kRanks; ++process) {
    REQUIRE(estimates[process]);
    CHECK(estimates[process]->collectives == 1);
    CHECK(estimates[process]->offset_ns == 500 - 200);
  }
}

TEST_CASE("two hosts: the check recovers an injected offset and drift from trace files") {
  ScratchDir dir;
  // True end of collective i, as Unix time: T0 + i·0.2 s.
  constexpr int64_t kT0 = 1'700'000'000'000'000'000;
  // Host a: realtime − monotonic = kA, so its monotonic ends are T_i − kA.
  constexpr int64_t kA = 1'699'999'000'000'000'000;
  // Host b: its clock samples say kB, but its ends are really late by
  // 150 µs + 1 ppm·(T_i − T0) (200 ns per 0.2 s = 1000 ns/s), ±3 µs jitter.
  constexpr int64_t kB = 1'699'998'000'000'000'000;
  const auto true_end = [](uint64_t i) { return kT0 + static_cast<int64_t>(i) * kPeriodNs; };
  WriteProcess(dir.File("a.100.vtrace"), "a", 0, kA, [&](uint64_t i) { return true_end(i) - kA; });
  WriteProcess(dir.File("b.101.vtrace"), "b", 1, kB, [&](uint64_t i) {
    return true_end(i) - kB + 150'000 + 200 * static_cast<int64_t>(i) + Jitter(i, 3000);
  });

  const Report report = ReportOf(dir.path());
  const TimeSource& time = report.time_source;
  REQUIRE(time.aligned_to_realtime);
  CHECK(time.collective_reference == "a.100.vtrace");
  REQUIRE(time.processes.size() == 2);
  CHECK(time.processes[0].host_sample_offset_ns == kA);  // median of kA − 100, kA, kA + 100
  CHECK(time.processes[1].host_sample_offset_ns == kB);
  CHECK_FALSE(time.processes[0].collectives);
  REQUIRE(time.processes[1].collectives);
  const CollectiveClockEstimate& b = *time.processes[1].collectives;
  CHECK(b.collectives == kCollectives);
  // On the realtime clock b's ends minus a's are 150000 + 200·i ± 3000; at
  // the mean i = 99.5: 150000 + 19900 = 169900, at T0 + 99.5·0.2 s.
  CHECK(b.at_ns == kT0 + 19'900'000'000);
  CHECK(b.offset_ns == Approx(169'900).margin(1));
  REQUIRE(b.drift_ns_per_s);
  CHECK(*b.drift_ns_per_s == Approx(1000).margin(0.01));
  // The jitter is exactly the residual: ±3000, above the 2 µs floor.
  CHECK(b.residual_spread_ns == Approx(3000).margin(1));
  CHECK(b.error_bound_ns == b.residual_spread_ns);
  // The injected offset at T0, back from the line: within the bound.
  const double at_t0 = static_cast<double>(b.offset_ns) - *b.drift_ns_per_s * 19.9;
  CHECK(std::abs(at_t0 - 150'000) <= static_cast<double>(b.error_bound_ns));

  const std::string check = ClockCheckDescription(time).value();
  CHECK(check ==
        "collective kernel ends against a.100.vtrace's (1 process checked): largest offset "
        "+170 µs ±3.00 µs (b.101.vtrace, 200 collectives), largest drift +1000.0 ns/s "
        "(b.101.vtrace); 1 process off by more than the bound: times are shifted against the "
        "reference's by about the offset; measured, not applied");

  const JsonValue json = JsonOf(report);
  CHECK(json["time_source"]["applied_offset"].string() == "host_clock_samples");
  CHECK(json["time_source"]["collective_reference"].string() == "a.100.vtrace");
  CHECK(ProcessClockJson(json, 0)["collectives"].number() == 0);
  const JsonValue& b_json = ProcessClockJson(json, 1);
  CHECK(b_json["file"].string() == "b.101.vtrace");
  CHECK(b_json["collectives"].number() == 200);
  CHECK(b_json["collective_offset_ns"].number() == Approx(169'900).margin(1));
  CHECK(b_json["collective_drift_ns_per_s"].number() == Approx(1000).margin(0.01));
  CHECK(b_json["collective_span_ns"].number() == 199 * kPeriodNs);
  CHECK(b_json["collective_error_bound_ns"].number() == Approx(3000).margin(1));
}

TEST_CASE("one host: the collective offset comes out near 0") {
  ScratchDir dir;
  // Both on node1's monotonic clock; rank 1's kernels end ±1 µs around rank 0's.
  const auto end = [](uint64_t i) { return 5'000'000'000 + static_cast<int64_t>(i) * kPeriodNs; };
  WriteProcess(dir.File("node1.100.vtrace"), "node1", 0, 0, end);
  WriteProcess(dir.File("node1.101.vtrace"), "node1", 1, 0,
               [&](uint64_t i) { return end(i) + Jitter(i, 1000); });
  const Report report = ReportOf(dir.path());
  const TimeSource& time = report.time_source;
  CHECK_FALSE(time.aligned_to_realtime);
  REQUIRE(time.processes[1].collectives);
  const CollectiveClockEstimate& estimate = *time.processes[1].collectives;
  CHECK(estimate.collectives == kCollectives);
  CHECK(estimate.offset_ns == 0);  // the ±1000 jitter sums to 0
  REQUIRE(estimate.drift_ns_per_s);
  CHECK(*estimate.drift_ns_per_s == Approx(0).margin(1e-6));
  CHECK(estimate.residual_spread_ns == 1000);
  CHECK(estimate.error_bound_ns == kKernelEndFloorNs);  // the spread is below the floor
  CHECK(time.processes[1].host_sample_offset_ns == 0);
  const std::string check = ClockCheckDescription(time).value();
  CHECK(
      check.starts_with("collective kernel ends against node1.100.vtrace's (1 process "
                        "checked): largest offset +0 ns ±2.00 µs (node1.101.vtrace, 200 "
                        "collectives)"));
  CHECK(check.ends_with("all within their bounds: the clocks agree; measured, not applied"));
  CHECK(TextOf(report).find("\nClock check: collective kernel ends against") != std::string::npos);
  CHECK(JsonOf(report)["time_source"]["applied_offset"].string() == "none");
}
