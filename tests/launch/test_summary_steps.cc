// Steps and fast-path candidates made node by node (a summary per host, then
// the merge) against `vprof report DIR` of the same traces: two hosts, two
// ranks each, NVTX steps, so that full steps span hosts. Plus what a merge
// says of nodes that measure from different steps, and of a summary whose
// steps are malformed. Times in comments are µs after step_trace.h's origin;
// the report gives ns.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <optional>
#include <sstream>
#include <tuple>

#include "reporter/base/exit_status.h"
#include "reporter/node_summary/node_summary.h"
#include "reporter/node_summary/summary_commands.h"
#include "reporter/node_summary/summary_file.h"
#include "reporter/node_summary/summary_merge.h"
#include "reporter/render/json/json_page.h"
#include "reporter/report/analysis_options.h"
#include "reporter/report/build.h"
#include "reporter/steps/deep_capture.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "step_trace.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint32_t kCompute = 7;
constexpr uint32_t kComm = 13;
constexpr uint32_t kGraphStream = 9;
constexpr int kSteps = 4;

// The steps and candidates sections of `report`'s JSON; the rest of a merged
// report is test_summary_merge.cc's to compare.
std::string StepsJsonOf(const Report& report) {
  Report sections;
  sections.steps = report.steps;
  sections.candidates = report.candidates;
  std::ostringstream out;
  WriteJsonReport(sections, out);
  return out.str();
}

// `vprof report DIR`'s.
Report WholeReport(const std::string& directory) {
  const TraceFileList traces = ListTraceFiles(directory);
  REQUIRE(traces.error.empty());
  return BuildReport(directory, traces.paths);
}

// Rank r (host h1: ranks 0, 1; h2: ranks 2, 3), step k at o = 1000k + 10r:
//   range "step" [o, o+400]
//   gemm       s7  launch o+10  [o+100, o+300]
//   all-reduce s13 launch o+20  [a, a+10(r+1)], a = o+320 (o+420 on rank 1 in step 2):
//              alone on the GPU, exposed 10(r+1)
//   a CUDA graph recorded whole, s9 launch o+30 [o+150, o+250]: under the gemm
// A window runs from the range's start to its end or to the end of the last
// GPU work launched in it, whichever is later: [o, o+400], but [o, o+440] on
// rank 1 in step 2.
// `profiler_start_us`: a cudaProfilerStart at that time.
// Without `nvtx`, no range: an Adam kernel [o+400, o+410] ends each step instead.
// `setup` runs on the trace before any step is added.
void WriteRank(const std::string& directory, const std::string& host, uint32_t pid, int32_t rank,
               std::optional<int64_t> profiler_start_us = {}, bool nvtx = true,
               const std::function<void(StepTrace&)>& setup = {}) {
  StepTrace trace(host, pid, rank, 0xA, 4);
  if (setup) setup(trace);
  if (profiler_start_us) trace.Api("cudaProfilerStart", *profiler_start_us);
  for (int k = 0; k < kSteps; ++k) {
    const int64_t o = 1000 * k + 10 * rank;
    const int64_t a = o + (rank == 1 && k == 2 ? 420 : 320);
    if (nvtx) trace.Range("step", o, o + 400);
    if (!nvtx) trace.Kernel(kAdamKernel, kCompute, o + 440, o + 450, o + 460);
    trace.Kernel(kGemmKernel, kCompute, o + 10, o + 100, o + 300);
    trace.GraphLaunch(3, kGraphStream, o + 30, {{o + 150, o + 200}, {o + 200, o + 250}}, true);
    trace.Kernel(kAllReduceKernel, kComm, o + 20, a, a + 10 * (rank + 1),
                 static_cast<uint64_t>(10 * k + 1), 1 << 20);
    trace.FlushNvtx();
    trace.FlushGpu();
    trace.FlushNccl();
  }
  trace.WriteTo(directory + "/" + host + "." + std::to_string(pid) + ".vtrace");
}

// `late_start`: h2's ranks call cudaProfilerStart between their steps 0 and 1.
void WriteTwoHostSteps(const std::string& directory, bool late_start = false) {
  WriteRank(directory, "h1", 11, 0);
  WriteRank(directory, "h1", 12, 1);
  const std::optional<int64_t> start = late_start ? std::optional<int64_t>(950) : std::nullopt;
  WriteRank(directory, "h2", 21, 2, start);
  WriteRank(directory, "h2", 22, 3, start);
}

std::vector<std::string> SummarizeHosts(const std::string& traces, const std::string& out_dir,
                                        const AnalysisOptions& analysis = {}) {
  const std::vector<std::string> paths = ListTraceFiles(traces).paths;
  std::vector<std::string> files;
  for (const char* host : {"h1", "h2"}) {
    files.push_back(out_dir + "/" + host + ".vsummary");
    const NodeSummaryResult result = WriteNodeSummary(
        traces, host, TracesOfHost(paths, host), ClockChoice::kRealtime, analysis, files.back());
    REQUIRE(result.error.empty());
  }
  return files;
}

Report Merged(const std::vector<std::string>& summaries) {
  MergeResult merged = MergeSummaries(summaries);
  INFO(merged.error);
  REQUIRE(merged.report);
  return std::move(*merged.report);
}

// A WriteRank setup: VPROF_DEEP=2/5 and deep windows [start, end) µs.
std::function<void(StepTrace&)> DeepWindows(std::vector<std::pair<int64_t, int64_t>> windows) {
  return [windows = std::move(windows)](StepTrace& trace) {
    trace.DeepSchedule("2/5");
    for (const auto& [start, end] : windows) trace.DeepWindow(start, end);
  };
}

// Rewrites the summary at `path` with `change` applied to every packet.
void EditSummary(const std::string& path,
                 const std::function<void(vprof::summary::SummaryPacket&)>& change) {
  std::vector<vprof::summary::SummaryPacket> packets;
  {
    SummaryFileReader reader(path);
    vprof::summary::SummaryPacket packet;
    while (reader.Next(&packet)) packets.push_back(packet);
    REQUIRE(reader.problem().empty());
  }
  SummaryFileWriter writer(path);
  for (vprof::summary::SummaryPacket& packet : packets) {
    change(packet);
    writer.Write(packet);
  }
  REQUIRE(writer.Finish());
}

}  // namespace

TEST_CASE("steps and candidates merged from two hosts are those of the whole folder") {
  ScratchDir traces, summaries;
  WriteTwoHostSteps(traces.path());
  const std::vector<std::string> files = SummarizeHosts(traces.path(), summaries.path());

  const Report report = Merged(files);
  CHECK(StepsJsonOf(report) == StepsJsonOf(WholeReport(traces.path())));
  CHECK(StepsJsonOf(Merged({files[1], files[0]})) == StepsJsonOf(report));

  // Worked out by hand from WriteRank's steps, warmup 1 (the default).
  REQUIRE(report.steps);
  const StepsReport& steps = *report.steps;
  CHECK(steps.problem.empty());
  CHECK(steps.source == StepSource::kNvtx);
  CHECK(steps.steps_found == 4);
  CHECK(steps.first_measured == 1);
  CHECK(steps.last_measured == 3);
  CHECK(steps.window == "steps 2-4 of 4 (step 1, warmup, left out)");
  REQUIRE(steps.ranks.size() == 4);
  const std::vector<std::string> files_by_rank = {"h1.11.vtrace", "h1.12.vtrace", "h2.21.vtrace",
                                                  "h2.22.vtrace"};
  for (int32_t r = 0; r < 4; ++r) {
    const RankStepsReport& rank = steps.ranks[static_cast<size_t>(r)];
    CHECK(rank.rank == r);
    CHECK(rank.file == files_by_rank[static_cast<size_t>(r)]);
    REQUIRE(rank.steps.size() == 3);
    // Three measured steps of exposed 10(r+1) each.
    CHECK(rank.total.exposed_comm_ns == 3 * 10'000 * (r + 1));
    // Three steps of 200 µs compute each.
    CHECK(rank.total.compute_ns == 3 * 200'000);
    // The graph's stream: one replay a step, no kernel, 100 µs busy.
    const auto graph_stream =
        std::find_if(rank.streams.begin(), rank.streams.end(),
                     [](const StreamRoleReport& s) { return s.stream == kGraphStream; });
    REQUIRE(graph_stream != rank.streams.end());
    CHECK(graph_stream->graph_replays == 3);
    CHECK(graph_stream->kernels == 0);
    CHECK(graph_stream->busy_ns == 3 * 100'000);
    CHECK(graph_stream->role == "compute");
  }
  // Step k starts with rank 0 at 1000k; it ends with rank 3 at
  // 1000k+30+400 = 1000k+430, except step 2, where rank 1 ends at
  // 2000+10+420+20 = 2450.
  REQUIRE(steps.full_steps.size() == 3);
  const std::vector<int64_t> durations = {430'000, 450'000, 430'000};
  const std::vector<int32_t> slowest = {3, 1, 3};
  for (size_t i = 0; i < 3; ++i) {
    const FullStepReport& full = steps.full_steps[i];
    CHECK(full.step == i + 1);
    CHECK(full.start_ns == kStepBase + static_cast<int64_t>(i + 1) * 1000 * kStepUs);
    CHECK(full.duration_ns == durations[i]);
    CHECK(full.slowest_rank == slowest[i]);
    CHECK(full.max_exposed_comm_ns == 40'000);  // rank 3's 10 * (3 + 1)
  }
  CHECK(steps.median_step_ns == 430'000);  // median of 430, 450, 430
  // Exposed communication in every step: the candidates have something to rank.
  CHECK_FALSE(report.candidates.empty());
}

TEST_CASE("a host whose ranks have no NVTX steps is left out, as from the whole folder") {
  ScratchDir traces, summaries;
  WriteRank(traces.path(), "h1", 11, 0);
  WriteRank(traces.path(), "h1", 12, 1);
  WriteRank(traces.path(), "h2", 21, 2, {}, false);
  WriteRank(traces.path(), "h2", 22, 3, {}, false);
  // h2 alone would find its steps by optimizer kernels; NVTX steps anywhere win.
  const Report report = Merged(SummarizeHosts(traces.path(), summaries.path()));
  CHECK(StepsJsonOf(report) == StepsJsonOf(WholeReport(traces.path())));
  REQUIRE(report.steps);
  CHECK(report.steps->source == StepSource::kNvtx);
  REQUIRE(report.steps->ranks.size() == 2);
  CHECK(report.steps->ranks[1].rank == 1);
}

TEST_CASE("a node whose deep windows held no step is counted in the merge as in the folder") {
  ScratchDir traces, summaries;
  // h1: one window holds steps 1 and 2 whole; h2: windows of 200 µs, inside
  // steps 1 and 3, hold none (its 4 steps a rank are all outside).
  const auto long_window = DeepWindows({{990, 2500}});
  const auto short_windows = DeepWindows({{1100, 1300}, {3100, 3300}});
  WriteRank(traces.path(), "h1", 11, 0, {}, true, long_window);
  WriteRank(traces.path(), "h1", 12, 1, {}, true, long_window);
  WriteRank(traces.path(), "h2", 21, 2, {}, true, short_windows);
  WriteRank(traces.path(), "h2", 22, 3, {}, true, short_windows);
  const Report whole = WholeReport(traces.path());
  const Report merged = Merged(SummarizeHosts(traces.path(), summaries.path()));
  for (const Report* report : {&whole, &merged}) {
    REQUIRE(report->steps);
    REQUIRE(report->steps->ranks.size() == 2);
    REQUIRE(report->steps->deep_without_steps.size() == 2);
    // h1's ranks: steps 0 and 3 outside; h2's: all 4.
    INFO(DeepCaptureSentence(*report->steps));
    CHECK(DeepCaptureSentence(*report->steps)
              .starts_with("VPROF_DEEP=2/5: GPU activity only in 2 deep windows; 4 steps analyzed "
                           "over the ranks, 12 outside the windows left out (8 of them in 2 "
                           "processes whose windows held no whole step)"));
  }
  CHECK(DeepCaptureSentence(*merged.steps) == DeepCaptureSentence(*whole.steps));
  CHECK(StepsJsonOf(merged) == StepsJsonOf(whole));
  CHECK(StepsJsonOf(whole).find("\"deep_without_steps\": [") != std::string::npos);
}

TEST_CASE("deep windows that held inferred steps, or no node's steps, merge as in the folder") {
  const auto window = [](int64_t start, int64_t end) { return DeepWindows({{start, end}}); };
  {
    // h2 marks no NVTX step, and its window holds its inferred steps:
    // left out of an NVTX report, as any rank without NVTX steps, but not as
    // a process whose windows held none.
    ScratchDir traces, summaries;
    WriteRank(traces.path(), "h1", 11, 0, {}, true, window(990, 2500));
    WriteRank(traces.path(), "h1", 12, 1, {}, true, window(990, 2500));
    WriteRank(traces.path(), "h2", 21, 2, {}, false, window(0, 3500));
    WriteRank(traces.path(), "h2", 22, 3, {}, false, window(0, 3500));
    const Report whole = WholeReport(traces.path());
    const Report merged = Merged(SummarizeHosts(traces.path(), summaries.path()));
    for (const Report* report : {&whole, &merged}) {
      REQUIRE(report->steps);
      CHECK(report->steps->ranks.size() == 2);
      CHECK(report->steps->deep_without_steps.empty());
      CHECK(DeepCaptureSentence(*report->steps).find("held no whole step") == std::string::npos);
    }
    CHECK(StepsJsonOf(merged) == StepsJsonOf(whole));
  }
  {
    // No window holds a step anywhere: no node is kept, and every node's
    // processes are named, as in the folder.
    ScratchDir traces, summaries;
    for (const auto& [host, pid, rank] : {std::tuple{"h1", 11, 0}, std::tuple{"h1", 12, 1},
                                          std::tuple{"h2", 21, 2}, std::tuple{"h2", 22, 3}}) {
      WriteRank(traces.path(), host, static_cast<uint32_t>(pid), rank, {}, true,
                window(1100, 1300));
    }
    const Report whole = WholeReport(traces.path());
    const Report merged = Merged(SummarizeHosts(traces.path(), summaries.path()));
    for (const Report* report : {&whole, &merged}) {
      REQUIRE(report->steps);
      CHECK(report->steps->ranks.empty());
      CHECK(report->steps->deep_without_steps.size() == 4);
      CHECK(DeepCaptureSentence(*report->steps).empty());
    }
  }
}

TEST_CASE("nodes that measure from different steps give no steps, and say why") {
  ScratchDir traces, summaries;
  WriteTwoHostSteps(traces.path(), true);
  // The whole folder leaves out h2's step 0 on every rank: step 1 is warmup.
  const Report whole = WholeReport(traces.path());
  REQUIRE(whole.steps);
  CHECK(whole.steps->first_measured == 2);

  // h1 alone measures from step 1, h2 from step 2: the steps do not line up.
  const MergeResult merged = MergeSummaries(SummarizeHosts(traces.path(), summaries.path()));
  REQUIRE(merged.report);
  REQUIRE(merged.report->steps);
  const StepsReport& steps = *merged.report->steps;
  CHECK(steps.ranks.empty());
  CHECK(steps.full_steps.empty());
  CHECK(steps.problem.find("do not measure from the same step") != std::string::npos);
  CHECK(steps.problem.find("h1.vsummary: first measured step 1 (warmup 1)") != std::string::npos);
  CHECK(steps.problem.find("h2.vsummary: first measured step 2 (warmup 1)") != std::string::npos);
  bool warned = false;
  for (const std::string& warning : merged.warnings) warned |= warning == steps.problem;
  CHECK(warned);
}

TEST_CASE("a summary whose steps are malformed is refused, naming the file and the field") {
  ScratchDir traces, summaries;
  WriteTwoHostSteps(traces.path());
  const std::vector<std::string> files = SummarizeHosts(traces.path(), summaries.path());
  std::string field;
  SECTION("a rank's step out of line") {
    EditSummary(files[1], [](vprof::summary::SummaryPacket& packet) {
      if (packet.has_process() && packet.process().has_steps()) {
        packet.mutable_process()->mutable_steps()->mutable_steps(1)->set_step(7);
      }
    });
    field = "Process h2.21.vtrace RankSteps.steps[1].step: 7, expected 2";
  }
  SECTION("an unknown source") {
    EditSummary(files[1], [](vprof::summary::SummaryPacket& packet) {
      if (packet.has_header()) packet.mutable_header()->mutable_steps()->set_source("guessed");
    });
    field = "Header NodeSteps.source: 'guessed'";
  }
  SECTION("rank steps without the node's") {
    EditSummary(files[1], [](vprof::summary::SummaryPacket& packet) {
      if (packet.has_header()) packet.mutable_header()->clear_steps();
    });
    field = "Process h2.21.vtrace has RankSteps but the Header has no NodeSteps";
  }
  const MergeResult merged = MergeSummaries(files);
  CHECK_FALSE(merged.report);
  CHECK_FALSE(merged.usage_error);
  CHECK(merged.error.find(files[1] + ": " + field) != std::string::npos);
  INFO(merged.error);

  // The command says so and fails as for any other malformed summary.
  std::ostringstream out, err;
  CHECK(RunMergeSummariesCommand({"--merge-summaries", files[0], files[1]}, out, err) ==
        kExitFailure);
  CHECK(err.str().find(field) != std::string::npos);
}

TEST_CASE("summaries made with --step-pattern and --warmup merge into that report") {
  ScratchDir traces, summaries;
  WriteTwoHostSteps(traces.path());
  AnalysisOptions analysis;
  analysis.steps.patterns = {"^step$"};
  analysis.steps.warmup_steps = 2;
  analysis.phase_rules = {{"gemm_region", "forward"}};
  const Report report = Merged(SummarizeHosts(traces.path(), summaries.path(), analysis));

  const TraceFileList listed = ListTraceFiles(traces.path());
  const Report whole = BuildReport(traces.path(), listed.paths, {}, analysis.steps);
  CHECK(StepsJsonOf(report) == StepsJsonOf(whole));
  REQUIRE(report.steps);
  CHECK(report.steps->pattern == "^step$");
  CHECK(report.steps->first_measured == 2);
  CHECK(report.steps->window == "steps 3-4 of 4 (steps 1-2, warmup, left out)");
}

TEST_CASE("summaries made with different analysis options are refused, naming the option") {
  ScratchDir traces, warm1, warm2, rules;
  WriteTwoHostSteps(traces.path());
  AnalysisOptions two;
  two.steps.warmup_steps = 2;
  const std::vector<std::string> default_files = SummarizeHosts(traces.path(), warm1.path());
  const std::vector<std::string> two_files = SummarizeHosts(traces.path(), warm2.path(), two);

  const MergeResult mixed = MergeSummaries({default_files[0], two_files[1]});
  CHECK_FALSE(mixed.report);
  CHECK(mixed.usage_error);
  CHECK(mixed.error == two_files[1] + " and " + default_files[0] +
                           " were made with different --warmup (2 and 1): make every node "
                           "summary with the same --step-pattern, --warmup and --phase-rules");

  AnalysisOptions with_rule;
  with_rule.phase_rules = {{"gemm_region", "forward"}};
  const std::vector<std::string> rule_files =
      SummarizeHosts(traces.path(), rules.path(), with_rule);
  const MergeResult rule_mixed = MergeSummaries({default_files[0], rule_files[1]});
  CHECK_FALSE(rule_mixed.report);
  CHECK(rule_mixed.error.find("different --phase-rules (1 and 0 rules, not the same)") !=
        std::string::npos);
}

TEST_CASE("--node-summary takes the analysis options and checks them") {
  ScratchDir traces, out;
  WriteTwoHostSteps(traces.path());
  std::ostringstream err;
  const std::string summary = out.path() + "/h1.vsummary";
  CHECK(RunNodeSummaryCommand({"--node-summary", summary, "--host", "h1", "--warmup", "2",
                               "--step-pattern", "^step$", traces.path()},
                              err) == kExitOk);
  INFO(err.str());
  SummaryFileReader reader(summary);
  vprof::summary::SummaryPacket header;
  REQUIRE(reader.Next(&header));
  CHECK(header.header().analysis().warmup_steps() == 2);
  REQUIRE(header.header().analysis().step_patterns_size() == 1);
  CHECK(header.header().analysis().step_patterns(0) == "^step$");

  std::ostringstream bad;
  CHECK(RunNodeSummaryCommand({"--node-summary", summary, "--step-pattern", "(", traces.path()},
                              bad) == kExitUsage);
  CHECK(bad.str().find("--step-pattern") != std::string::npos);
}
