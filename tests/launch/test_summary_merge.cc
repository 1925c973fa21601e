// Reports made node by node (a summary per host, then a merge) against the
// report `vprof report DIR` makes of the same traces: the JSON and the text of
// both must be identical, byte for byte, coverage and requested-vs-actual
// included, and held to --strict or a contract alike. Plus the mistakes a
// merge must refuse.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "four_rank_run.h"
#include "reporter/consistency/run_contract.h"
#include "reporter/node_summary/node_summary.h"
#include "reporter/node_summary/summary_merge.h"
#include "reporter/render/json/json_page.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "two_node_run.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

std::string JsonOf(const Report& report) {
  std::ostringstream out;
  WriteJsonReport(report, out);
  return out.str();
}

std::string TextOf(const Report& report) {
  std::ostringstream out;
  WriteTextReport(report, out);
  return out.str();
}

std::vector<std::string> TracesIn(const std::string& directory) {
  const TraceFileList traces = ListTraceFiles(directory);
  REQUIRE(traces.error.empty());
  return traces.paths;
}

// `vprof report DIR` less what node summaries do not carry: collectives'
// cross-rank GPU time needs every rank's records in one reader. Steps and
// candidates they carry: those stay.
Report WholeReport(const std::string& directory, const ConsistencyOptions& consistency = {}) {
  Report report = BuildReport(directory, TracesIn(directory), consistency);
  for (CommunicatorReport& comm : report.communicators) {
    for (OpReport& op : comm.ops) {
      op.collective_gpu_calls = 0;
      op.collective_gpu_mean_ns.reset();
      op.collective_gpu_median_ns.reset();
      op.collective_busbw_gbps.reset();
    }
  }
  // Nor the collective clock check, which matches kernel spans across nodes.
  report.time_source.collective_reference.clear();
  report.time_source.processes.clear();
  return report;
}

std::string WholeReportJson(const std::string& directory) { return JsonOf(WholeReport(directory)); }

// Writes one summary of `paths` (named after `host`) into `out_dir`; returns its path.
std::string Summarize(const std::string& directory, const std::string& host,
                      const std::vector<std::string>& paths, ClockChoice clock,
                      const std::string& out_dir) {
  const std::string out = out_dir + "/" + host + ".vsummary";
  const NodeSummaryResult result = WriteNodeSummary(directory, host, paths, clock, {}, out);
  REQUIRE(result.error.empty());
  return out;
}

Report Merged(const std::vector<std::string>& summaries,
              const ConsistencyOptions& consistency = {}) {
  MergeResult merged = MergeSummaries(summaries, consistency);
  INFO(merged.error);
  REQUIRE(merged.report);
  return std::move(*merged.report);
}

std::string MergedJson(const std::vector<std::string>& summaries) {
  return JsonOf(Merged(summaries));
}

// The summaries of the two-node run's hosts, on CLOCK_REALTIME.
std::vector<std::string> SummarizeTwoNodes(const std::string& traces,
                                           const std::string& summaries) {
  const std::vector<std::string> paths = TracesIn(traces);
  return {Summarize(traces, kFirstHost, TracesOfHost(paths, kFirstHost), ClockChoice::kRealtime,
                    summaries),
          Summarize(traces, kSecondHost, TracesOfHost(paths, kSecondHost), ClockChoice::kRealtime,
                    summaries)};
}

}  // namespace

TEST_CASE("two hosts summarized apart merge into the report of the whole folder") {
  ScratchDir traces, summaries;
  WriteTwoNodeRun(traces.path());
  const std::vector<std::string> files = SummarizeTwoNodes(traces.path(), summaries.path());

  const Report whole = WholeReport(traces.path());
  const Report report = Merged(files);
  CHECK(JsonOf(report) == JsonOf(whole));
  CHECK(TextOf(report) == TextOf(whole));
  // The order of summaries does not matter.
  CHECK(MergedJson({files[1], files[0]}) == JsonOf(whole));

  // The fixture exercises what the merge must get right: realtime alignment,
  // collectives spanning hosts, incomplete ones, a cut trace, GPU totals.
  CHECK(report.time_source.aligned_to_realtime);
  CHECK_FALSE(report.all_inputs_whole());
  CHECK(JsonOf(report).find("ncclDevKernel_AllReduce") != std::string::npos);
  bool spans_hosts_incomplete = false;
  for (const CommunicatorReport& comm : report.communicators) {
    spans_hosts_incomplete |= comm.size == 4 && !comm.incomplete.empty();
  }
  CHECK(spans_hosts_incomplete);

  // And the coverage check and the requested-vs-actual comparison, which read
  // each process's plugin totals, environment, wrapper counts and drops.
  REQUIRE(report.coverage);
  std::set<std::string> gaps;
  for (const CoverageGap& gap : report.coverage->gaps) gaps.insert(gap.kind);
  CHECK(gaps == std::set<std::string>{"plugin_exceeds_wrappers", "wrappers_exceed_plugin",
                                      "records_dropped", "processes_missing"});
  bool graph_kernels = false, ipc_calls = false;
  for (const CoverageProcess& process : report.coverage->processes) {
    graph_kernels |= process.nccl_graph_kernels > 0;
    ipc_calls |= !process.ipc_calls.empty();
  }
  CHECK(graph_kernels);
  CHECK(ipc_calls);
  // Graph replays recorded whole, which the GPU totals count apart: ranks 1
  // and 2, one a step of 40 µs (+ rank ns).
  for (const ProcessReport& process : report.processes) {
    if (process.rank != 1 && process.rank != 2) continue;
    INFO("rank " << *process.rank);
    CHECK(process.gpu.graph_replays.count == 6);
    CHECK(process.gpu.graph_replays.total_ns == 6 * (40'000 + *process.rank));
    // Rank 1's graph listed with 6 kernel nodes, 2 fills and a copy; rank 2's not listed.
    const GraphNodes& ran = process.gpu.graph_replay_nodes;
    CHECK(ran.kernels == (process.rank == 1 ? 36u : 0u));
    CHECK(ran.memsets == (process.rank == 1 ? 12u : 0u));
    CHECK(ran.memcpys == (process.rank == 1 ? 6u : 0u));
    CHECK(process.gpu.graph_replays_unlisted == (process.rank == 1 ? 0u : 6u));
  }
  REQUIRE(report.consistency);
  CHECK(report.consistency->violations > 0);
  CHECK(report.consistency->custom_allreduce_kernels.count == 4);

  // And the NVTX phases: six steps on rank 0, each forward holding a forward
  // (counted once: 290 µs a step), NCCL's own ranges left out; rank 2's
  // unmatched name kept.
  REQUIRE(report.phases.size() >= 3);
  const ProcessPhasesReport& rank0 = report.phases[0];
  CHECK(rank0.rank == 0);
  CHECK(rank0.nccl_ranges == 6);
  bool forward_seen = false;
  for (const PhaseReport& phase : rank0.phases) {
    if (phase.name != "forward") continue;
    forward_seen = true;
    CHECK(phase.count == 6);
    CHECK(phase.total_ns == 6 * 290'000);
  }
  CHECK(forward_seen);
  const ProcessPhasesReport& rank2 = report.phases[2];
  CHECK(rank2.rank == 2);
  REQUIRE_FALSE(rank2.phases.empty());
  CHECK(rank2.phases.back().name == "custom_eval");
  CHECK(rank2.phases.back().unmatched);
}

TEST_CASE("a merge held to --strict or a contract gives the report of the whole folder") {
  ScratchDir traces, summaries;
  WriteTwoNodeRun(traces.path());
  const std::vector<std::string> files = SummarizeTwoNodes(traces.path(), summaries.path());

  ConsistencyOptions consistency;
  SECTION("--strict") { consistency.strict = true; }
  SECTION("--contract") {
    const RunContractLoad load = ParseRunContract(
        R"({"version": 1, "consistency": "strict",
            "nccl": {"algorithms": ["ring"], "protocols": ["simple"], "channels": {"max": 2}},
            "custom_allreduce_allowed": true, "all_reduce_backend": "nccl",
            "fallback_axes": ["nccl_proto"]})",
        "contract.json");
    INFO(load.error);
    REQUIRE(load.contract);
    consistency.contract = load.contract;
  }
  const Report whole = WholeReport(traces.path(), consistency);
  const Report merged = Merged(files, consistency);
  CHECK(JsonOf(merged) == JsonOf(whole));
  CHECK(TextOf(merged) == TextOf(whole));
  CHECK(merged.strict_failed());
}

TEST_CASE("one host's traces split across summaries merge into the same report") {
  ScratchDir traces, summaries;
  WriteFourRankRun(traces.path(), GENERATE(-1, 2));  // all ranks, and rank 2 missing
  const std::vector<std::string> paths = TracesIn(traces.path());
  const size_t half = paths.size() / 2;
  const std::vector<std::string> files = {
      Summarize(traces.path(), "a", {paths.begin(), paths.begin() + half}, ClockChoice::kMonotonic,
                summaries.path()),
      Summarize(traces.path(), "b", {paths.begin() + half, paths.end()}, ClockChoice::kMonotonic,
                summaries.path())};
  CHECK(MergedJson(files) == WholeReportJson(traces.path()));
}

TEST_CASE("a host's traces are picked by the name libvprof gives them") {
  const std::vector<std::string> paths = {"d/n1.12.vtrace",        "d/n1.12.3.vtrace",
                                          "d/n1.cluster.5.vtrace", "d/n10.5.vtrace",
                                          "d/n1.x.vtrace",         "d/n1.7.vtrace.tmp"};
  CHECK(TracesOfHost(paths, "n1") ==
        std::vector<std::string>{"d/n1.12.vtrace", "d/n1.12.3.vtrace"});
  CHECK(TracesOfHost(paths, "n1.cluster") == std::vector<std::string>{"d/n1.cluster.5.vtrace"});
}

TEST_CASE("summaries that do not belong together are refused") {
  ScratchDir traces, other, summaries;
  WriteTwoNodeRun(traces.path());
  WriteFourRankRun(other.path());
  const std::vector<std::string> paths = TracesIn(traces.path());
  const std::string first = Summarize(traces.path(), kFirstHost, TracesOfHost(paths, kFirstHost),
                                      ClockChoice::kRealtime, summaries.path());

  SECTION("another run's folder") {
    const std::string foreign = Summarize(other.path(), "node1", TracesIn(other.path()),
                                          ClockChoice::kRealtime, summaries.path());
    const MergeResult merged = MergeSummaries({first, foreign});
    CHECK_FALSE(merged.report);
    CHECK(merged.usage_error);
    CHECK(merged.error.find(other.path()) != std::string::npos);
  }
  SECTION("the same trace twice") {
    const std::string again = Summarize(traces.path(), "copy", TracesOfHost(paths, kFirstHost),
                                        ClockChoice::kRealtime, summaries.path());
    const MergeResult merged = MergeSummaries({first, again});
    CHECK(merged.usage_error);
    CHECK(merged.error.find("is in two summaries") != std::string::npos);
  }
  SECTION("different clocks") {
    const std::string monotonic =
        Summarize(traces.path(), kSecondHost, TracesOfHost(paths, kSecondHost),
                  ClockChoice::kMonotonic, summaries.path());
    CHECK(MergeSummaries({first, monotonic}).usage_error);
  }
  SECTION("each host's own clock for traces of two hosts") {
    const std::vector<std::string> files = {
        Summarize(traces.path(), kFirstHost, TracesOfHost(paths, kFirstHost),
                  ClockChoice::kMonotonic, summaries.path()),
        Summarize(traces.path(), kSecondHost, TracesOfHost(paths, kSecondHost),
                  ClockChoice::kMonotonic, summaries.path())};
    const MergeResult merged = MergeSummaries(files);
    CHECK(merged.usage_error);
    CHECK(merged.error.find("--clock realtime") != std::string::npos);
  }
}

TEST_CASE("a trace in no summary, and a cut summary, are named") {
  ScratchDir traces, summaries;
  WriteTwoNodeRun(traces.path());
  const std::vector<std::string> paths = TracesIn(traces.path());
  const std::string first = Summarize(traces.path(), kFirstHost, TracesOfHost(paths, kFirstHost),
                                      ClockChoice::kRealtime, summaries.path());

  const MergeResult partial = MergeSummaries({first});
  REQUIRE(partial.report);
  CHECK(partial.traces_missing);
  std::vector<std::string> missing;
  for (const std::string& warning : partial.warnings) {
    if (warning.find(": in no node summary") != std::string::npos) missing.push_back(warning);
  }
  REQUIRE(missing.size() == 2);  // n2's two traces
  CHECK(missing[0].find("n2.202.vtrace") != std::string::npos);

  std::string bytes;
  {
    std::ifstream in(first, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(first, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 3);
  const MergeResult cut = MergeSummaries({first});
  CHECK_FALSE(cut.report);
  CHECK_FALSE(cut.usage_error);
  CHECK(cut.error.find(first) != std::string::npos);
}
