// The spans of the HTML report's timeline, collected from traces written the
// way the capture side writes them (timeline_fixture.h works them out).
#include <algorithm>
#include <catch2/catch.hpp>
#include <tuple>

#include "reporter/export/step_timeline_spans.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "steps/step_trace.h"
#include "timeline_fixture.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

std::optional<StepTimeline> TimelineOf(const std::string& directory, uint32_t warmup) {
  const Report report = StepReportOf(directory, warmup);
  return CollectStepTimeline(report, ListTraceFiles(directory).paths);
}

// (lane name, kind, start µs, duration µs, name, id), start from kStepBase.
using Row = std::tuple<std::string, TimelineSpanKind, int64_t, int64_t, std::string, std::string>;

std::vector<Row> RowsOf(const RankTimeline& rank) {
  std::vector<Row> rows;
  for (const TimelineSpan& span : rank.spans) {
    rows.emplace_back(rank.lanes.at(span.lane), span.kind, (span.start_ns - kStepBase) / kStepUs,
                      span.duration_ns / kStepUs, span.name, span.id);
  }
  return rows;
}

}  // namespace

TEST_CASE("the timeline step's spans on each rank, clipped to its window, with the GPU's gaps") {
  ScratchDir dir;
  WriteTimelineFixture(dir.path());
  const std::optional<StepTimeline> timeline = TimelineOf(dir.path(), 1);
  REQUIRE(timeline);
  CHECK(timeline->step == 1);
  CHECK(timeline->ranks_caption.empty());
  REQUIRE(timeline->ranks.size() == 2);
  const RankTimeline& rank0 = timeline->ranks[0];
  CHECK(rank0.label == "rank 0 (node1 pid 100)");
  CHECK(rank0.file == "rank0.vtrace");
  CHECK(rank0.window_start_ns == kStepBase + 1020 * kStepUs);
  CHECK(rank0.window_end_ns == kStepBase + 2020 * kStepUs);
  CHECK(rank0.lanes == std::vector<std::string>{"NVTX", "NVTX level 2", "NCCL calls", "stream 7",
                                                "stream 9", "stream 13", "GPU idle"});
  using K = TimelineSpanKind;
  const std::vector<Row> expected = {
      {"NVTX", K::kNvtx, 1020, 380, "step", ""},
      {"NVTX", K::kNvtx, 2000, 20, "step", ""},
      {"NVTX level 2", K::kNvtx, 1020, 80, "forward", ""},
      {"NVTX level 2", K::kNvtx, 2005, 15, "forward", ""},
      {"NCCL calls", K::kNcclCall, 1020, 3, "ncclAllReduce", "call_id:11"},
      {"NCCL calls", K::kNcclCall, 2019, 1, "ncclAllReduce", "call_id:21"},
      {"stream 7", K::kCompute, 1050, 100, std::string(kGemmKernel), "correlation:5"},
      {"stream 7", K::kCompute, 1380, 640, std::string(kGemmKernel), "correlation:8"},
      {"stream 9", K::kCopy, 1200, 10, "Memcpy 4096 B", "correlation:7"},
      {"stream 13", K::kCommKernel, 1150, 50, std::string(kAllReduceKernel), "correlation:6"},
      {"GPU idle", K::kIdle, 1020, 30, "GPU idle", ""},
      {"GPU idle", K::kIdle, 1210, 170, "GPU idle", ""},
  };
  CHECK(RowsOf(rank0) == expected);
  CHECK(rank0.spans_left_out == 0);
  // Rank 1 is rank 0 5 µs later.
  const RankTimeline& rank1 = timeline->ranks[1];
  CHECK(rank1.window_start_ns == kStepBase + 1025 * kStepUs);
  std::vector<Row> shifted = expected;
  for (Row& row : shifted) std::get<2>(row) += 5;
  CHECK(RowsOf(rank1) == shifted);
}

TEST_CASE("beyond the per-rank cap the shortest spans are left out and counted") {
  // One step [0, 4200] of 2100 kernels back to back, kernel j at [2j, 2j+2]
  // µs, except every tenth, which lasts 1 µs and leaves the GPU idle for the
  // next one: 1 NVTX range, 1890 kernels of 2 µs, 210 of 1 µs, 210 gaps of
  // 1 µs: 2311 spans. The cap keeps 2000: the range, the 1890 long kernels
  // and 109 of the 420 one-µs spans; 311 are left out.
  static_assert(kMaxTimelineSpansPerRank == 2000);
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  trace.Range("step", 0, 4200);
  for (int64_t j = 0; j < 2100; ++j) {
    trace.Kernel(kGemmKernel, 7, 0, 2 * j, 2 * j + (j % 10 == 0 ? 1 : 2));
  }
  trace.FlushNvtx();
  trace.FlushGpu();
  trace.WriteTo(dir.File("rank0.vtrace"));
  const std::optional<StepTimeline> timeline = TimelineOf(dir.path(), 0);
  REQUIRE(timeline);
  REQUIRE(timeline->ranks.size() == 1);
  const RankTimeline& rank = timeline->ranks[0];
  CHECK(rank.spans.size() == 2000);
  CHECK(rank.spans_left_out == 311);
  CHECK(rank.longest_left_out_ns == 1 * kStepUs);
  const auto lasting = [&](int64_t us) {
    return std::count_if(rank.spans.begin(), rank.spans.end(), [&](const TimelineSpan& span) {
      return span.duration_ns == us * kStepUs;
    });
  };
  CHECK(lasting(4200) == 1);
  CHECK(lasting(2) == 1890);
  CHECK(lasting(1) == 109);
  // What is kept is by lane, then start.
  CHECK(std::is_sorted(rank.spans.begin(), rank.spans.end(),
                       [](const TimelineSpan& a, const TimelineSpan& b) {
                         return std::tie(a.lane, a.start_ns) < std::tie(b.lane, b.start_ns);
                       }));
}

TEST_CASE("without a measured step there is no timeline") {
  ScratchDir dir;
  StepTrace trace("node1", 100, 0);
  trace.Api("cudaProfilerStart", 1);
  trace.FlushGpu();
  trace.WriteTo(dir.File("rank0.vtrace"));
  CHECK_FALSE(TimelineOf(dir.path(), 0));
}
