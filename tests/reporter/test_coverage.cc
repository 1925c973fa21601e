// The coverage self-check over traces whose every count is known: what the
// wrappers, NCCL's profiler plugin and CUPTI each saw per process, and every
// gap named with its cause.
#include <catch2/catch.hpp>
#include <sstream>
#include <tuple>

#include "cli_runner.h"
#include "four_rank_run.h"
#include "gpu_batch_builder.h"
#include "mini_json.h"
#include "plugin_trace_builder.h"
#include "report_of.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/text_layout.h"
#include "reporter/cli/cli.h"
#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"
#include "reporter/render/json/json_page.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint64_t kWorld = 0xabc;       // the wrappers' id of the communicator
constexpr uint64_t kWorldHash = 0x5eed;  // NCCL's commHash of the same communicator
constexpr const char* kAllReduceKernel = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
constexpr const char* kBypassed =
    "calls bypassed the preload (dlsym on a library handle, as vLLM's PyNccl does)";
constexpr const char* kNotPreloaded =
    "vprof not preloaded (entered through NCCL_PROFILER_PLUGIN/CUDA_INJECTION64_PATH only)";

JsonValue JsonOf(const Report& report) {
  std::ostringstream out;
  WriteJsonReport(report, out);
  return JsonValue::Parse(out.str());
}

// `text` with every run of spaces made one, so table rows can be found by
// their cells.
std::string Squeezed(const std::string& text) {
  std::string result;
  for (const char c : text) {
    if (c == ' ' && !result.empty() && result.back() == ' ') continue;
    result += c;
  }
  return result;
}

std::string FileOf(uint32_t pid) { return "node1." + std::to_string(pid) + ".vtrace"; }

// A rank of `comm_size` that the wrappers, the plugin (v5) and CUPTI all saw
// make `calls` all-reduces, each one NCCL kernel.
PluginTraceBuilder WholeRank(uint32_t rank, uint32_t comm_size, uint64_t calls) {
  PluginTraceBuilder process("node1", 101 + rank, static_cast<int32_t>(rank));
  process.SetEnv("LD_PRELOAD", "/opt/vprof/lib/libvprof.so");
  process.AddInjection(true, 5);
  process.AddCommunicator(kWorld, comm_size, rank);
  process.AddPluginComm(1, kWorldHash, "world", comm_size, rank);
  process.AddWrapperCalls("ncclAllReduce", kWorld, comm_size, rank, 1, calls);
  process.AddPluginColls(1, "AllReduce", "RING", "SIMPLE", 4, calls);
  process.AddKernels(kAllReduceKernel, calls, 20000);
  return process;
}

// A vLLM worker that reached NCCL only through a dlsym handle: the plugin and
// CUPTI saw 7 all-reduces on a communicator of its own, the wrappers nothing.
void WriteHandleOnlyProcess(const std::string& directory, const std::string& ld_preload) {
  PluginTraceBuilder process("node1", 301, 0);
  process.SetEnv("LD_PRELOAD", ld_preload);
  process.AddInjection(true, 5);
  process.AddPluginComm(1, 0xb1, "pynccl", 1, 0);
  process.AddPluginColls(1, "AllReduce", "RING", "LL", 2, 7);
  process.AddKernels(kAllReduceKernel, 7, 5000);
  process.WriteTo(directory + "/" + FileOf(301));
}

// A rank whose 5 all-reduces the wrappers saw: 3 eager (one kernel each), 2
// captured into a CUDA graph (no kernel at capture), as the plugin reports them.
PluginTraceBuilder GraphCapturingRank() {
  PluginTraceBuilder process("node1", 101, 0);
  process.AddInjection(true, 5);
  process.AddCommunicator(kWorld, 1, 0);
  process.AddPluginComm(1, kWorldHash, "", 1, 0);
  process.AddWrapperCalls("ncclAllReduce", kWorld, 1, 0, 1, 5);
  process.AddPluginColls(1, "AllReduce", "RING", "SIMPLE", 4, 3);
  process.AddPluginColls(1, "AllReduce", "RING", "SIMPLE", 4, 2, /*graph_captured=*/true);
  process.AddKernels(kAllReduceKernel, 3, 20000);
  return process;
}

const CoverageGap& OnlyGap(const Report& report) {
  REQUIRE(report.coverage);
  INFO(TextOf(report));
  REQUIRE(report.coverage->gaps.size() == 1);
  return report.coverage->gaps[0];
}

}  // namespace

TEST_CASE("full coverage: every count agrees, no gaps") {
  ScratchDir dir;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    WholeRank(rank, 2, 10).WriteTo(dir.File(FileOf(101 + rank)));
  }
  const Report report = ReportOf(dir.path());
  REQUIRE(report.coverage);
  REQUIRE(report.coverage->processes.size() == 2);
  for (const CoverageProcess& row : report.coverage->processes) {
    CHECK(row.wrapper_collectives == 10);
    CHECK(row.plugin_attached);
    CHECK(row.plugin_version == 5);
    CHECK(row.plugin_collectives == 10);
    CHECK(row.plugin_p2p == 0);
    CHECK(row.gpu_captured);
    CHECK(row.nccl_kernels == 10);
    CHECK(row.nccl_graph_kernels == 0);
  }
  CHECK(report.coverage->processes[1].rank == 1);
  CHECK(report.coverage->gaps.empty());

  // The plugin's view of each process.
  const NcclPluginRecord& plugin = report.processes[0].nccl_plugin;
  REQUIRE(plugin.contexts.size() == 1);
  const NcclPluginContext& context = plugin.contexts.at(1);
  CHECK(context.described);
  CHECK(context.comm_hash == kWorldHash);
  CHECK(context.name == "world");
  CHECK(context.nranks == 2);
  CHECK(context.ops.at("AllReduce").coll == 10);
  CHECK(plugin.algorithms.at({"AllReduce", "RING", "SIMPLE", 4}) == 10);

  const std::string text = TextOf(report);
  INFO(text);
  CHECK(text.find("\n  no gaps: every count agrees\n") != std::string::npos);
  // rank, coll w/p, p2p w/p, kernels, graph, plugin, custom AR, IPC calls, peer copies, file
  CHECK(Squeezed(text).find("\n 1 10/10 0/0 10 0 v5 - - - node1.102.vtrace\n") !=
        std::string::npos);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK(DisplayWidth(line) <= kTextWidth);

  const JsonValue json = JsonOf(report);
  const JsonValue& row = json["coverage"]["processes"][0];
  CHECK(row["file"].string() == FileOf(101));
  CHECK(row["wrapper_collectives"].number() == 10);
  CHECK(row["plugin_collectives"].number() == 10);
  CHECK(row["nccl_kernels"].number() == 10);
  CHECK(json["coverage"]["gaps"].array().empty());
  const JsonValue& context_json = json["processes"][0]["nccl_plugin"]["contexts"][0];
  CHECK(context_json["comm_hash"].string() == "0x5eed");
  CHECK(context_json["ops"][0]["func"].string() == "AllReduce");
  CHECK(context_json["ops"][0]["coll"].number() == 10);
  CHECK(json["processes"][0]["nccl_plugin"]["status"]["version"].number() == 5);
}

TEST_CASE("collectives on a one-rank communicator are no gap: NCCL reports nothing for them") {
  // A one-process job: 10 all-reduces on a world of one, which NCCL runs as a local copy with
  // no plugin event and no kernel; the plugin attached to its communicator all the same.
  ScratchDir dir;
  PluginTraceBuilder process("node1", 101, 0);
  process.SetEnv("LD_PRELOAD", "/opt/vprof/lib/libvprof.so");
  process.AddInjection(true, 5);
  process.AddCommunicator(kWorld, 1, 0);
  process.AddPluginComm(1, kWorldHash, "world", 1, 0);
  process.AddWrapperCalls("ncclAllReduce", kWorld, 1, 0, 1, 10);
  process.WriteTo(dir.File(FileOf(101)));
  const Report report = ReportOf(dir.path());
  REQUIRE(report.coverage);
  INFO(TextOf(report));
  CHECK(report.coverage->gaps.empty());
  REQUIRE(report.coverage->processes.size() == 1);
  CHECK(report.coverage->processes[0].wrapper_collectives == 10);
  CHECK(report.coverage->processes[0].wrapper_one_rank_collectives == 10);
  CHECK(TextOf(report).find("10 of its collectives on one-rank communicators") !=
        std::string::npos);
  CHECK(JsonOf(report)["coverage"]["processes"][0]["wrapper_one_rank_collectives"].number() == 10);
}

TEST_CASE("a process that reached NCCL through a dlsym handle, with vprof preloaded") {
  ScratchDir dir;
  WriteHandleOnlyProcess(dir.path(), "/usr/lib/libfoo.so:/opt/vprof/lib/libvprof.so");
  const Report report = ReportOf(dir.path());
  const CoverageGap& gap = OnlyGap(report);
  CHECK(gap.kind == "plugin_exceeds_wrappers");
  CHECK(gap.file == FileOf(301));
  CHECK(gap.rank == 0);
  CHECK(gap.detail == "the plugin saw 7 collectives, the wrappers 0");
  CHECK(gap.causes == std::vector<std::string>{kBypassed});
  const CoverageProcess& row = report.coverage->processes.at(0);
  CHECK(row.wrapper_collectives == 0);
  CHECK(row.plugin_collectives == 7);
  CHECK(row.nccl_kernels == 7);
}

TEST_CASE("a process vprof entered only through the plugin or CUDA injection") {
  ScratchDir dir;
  WriteHandleOnlyProcess(dir.path(), "/usr/lib/torch_memory_saver_hook.so");
  CHECK(OnlyGap(ReportOf(dir.path())).causes == std::vector<std::string>{kNotPreloaded});
}

TEST_CASE("NCCL kernels from CUDA graph replays exceed the calls anyone saw") {
  // The graph is replayed 10 times: 20 kernels with a graph id.
  ScratchDir dir;
  PluginTraceBuilder process = GraphCapturingRank();
  process.AddKernels(kAllReduceKernel, 20, 20000, /*graph_id=*/9);
  process.WriteTo(dir.File(FileOf(101)));

  const Report report = ReportOf(dir.path());
  const CoverageGap& gap = OnlyGap(report);
  CHECK(gap.kind == "kernels_exceed_plugin");
  CHECK(gap.detail == "23 NCCL kernels, 5 operations the plugin reported");
  REQUIRE(gap.causes.size() == 1);
  CHECK(gap.causes[0] ==
        "CUDA graph replays (20 NCCL kernels launched by CUDA graphs: a captured collective is "
        "seen once, its replays never)");
  const CoverageProcess& row = report.coverage->processes.at(0);
  CHECK(row.nccl_kernels == 23);
  CHECK(row.nccl_graph_kernels == 20);
  CHECK(row.plugin_graph_captured == 2);
}

TEST_CASE("collectives captured into graphs whose replays were recorded whole are named unseen") {
  // As above, but the light default recorded the 10 replays whole: no kernel of theirs is
  // counted, so no count exceeds another, and the gap says what the counts cannot show.
  ScratchDir dir;
  PluginTraceBuilder process = GraphCapturingRank();
  GpuBatchBuilder replays(process.trace());
  for (int i = 0; i < 10; ++i) replays.GraphReplay(9, 50000);
  replays.Write();
  process.WriteTo(dir.File(FileOf(101)));

  const Report report = ReportOf(dir.path());
  const CoverageGap& gap = OnlyGap(report);
  CHECK(gap.kind == "graph_replays_unseen");
  CHECK(gap.detail == "2 collectives captured into CUDA graphs, 10 graph replays recorded whole");
  REQUIRE(gap.causes.size() == 1);
  CHECK(gap.causes[0].starts_with("replays recorded whole (the light default)"));
  CHECK(report.coverage->processes.at(0).nccl_graph_kernels == 0);
}

TEST_CASE("a communicator with a member vprof did not trace") {
  // Ranks 0-2 of a 4-rank communicator; rank 3 left no trace.
  ScratchDir dir;
  for (uint32_t rank = 0; rank < 3; ++rank) {
    WholeRank(rank, 4, 2).WriteTo(dir.File(FileOf(101 + rank)));
  }
  const Report report = ReportOf(dir.path());
  REQUIRE(report.coverage);
  const std::vector<CoverageGap>& gaps = report.coverage->gaps;
  REQUIRE(gaps.size() == 2);
  CHECK(gaps[0].kind == "processes_missing");
  CHECK(gaps[0].comm_id == "0xabc");
  CHECK(gaps[0].comm_id_source == "vprof");
  CHECK(gaps[0].detail == "size 4, 3 members traced");
  CHECK(gaps[0].causes ==
        std::vector<std::string>{"vprof absent from 1 process(es) of communicator 0xabc"});
  CHECK(gaps[1].comm_id == "0x5eed");
  CHECK(gaps[1].comm_id_source == "nccl");
  CHECK(gaps[1].comm_name == "world");
  CHECK(gaps[1].causes ==
        std::vector<std::string>{"vprof absent from 1 process(es) of communicator 0x5eed (world)"});

  const JsonValue json = JsonOf(report);
  const JsonValue& gap = json["coverage"]["gaps"][1];
  CHECK(gap["kind"].string() == "processes_missing");
  CHECK(gap["file"].is_null());
  CHECK(gap["comm_id"].string() == "0x5eed");
  CHECK(gap["causes"][0].string() ==
        "vprof absent from 1 process(es) of communicator 0x5eed (world)");
}

TEST_CASE("the plugin not attached, and records dropped") {
  ScratchDir dir;
  {
    // NCCL never loaded the plugin: the wrappers saw 4 calls, CUPTI 4 kernels.
    PluginTraceBuilder process("node1", 101, 0);
    process.AddInjection(false, 0, "NCCL never called ncclProfiler_v5 init");
    process.AddCommunicator(kWorld, 1, 0);
    process.AddWrapperCalls("ncclAllReduce", kWorld, 1, 0, 1, 4);
    process.AddKernels(kAllReduceKernel, 4, 1000);
    process.WriteTo(dir.File(FileOf(101)));
  }
  {
    // 10 calls; the plugin reported 8 and dropped 2; 3 wrapper events lost.
    PluginTraceBuilder process("node1", 102, 1);
    process.AddInjection(true, 5);
    process.AddCommunicator(kWorld + 1, 1, 0);
    process.AddPluginComm(1, 0x77, "", 1, 0);
    process.AddWrapperCalls("ncclAllReduce", kWorld + 1, 1, 0, 1, 10);
    process.AddPluginColls(1, "AllReduce", "RING", "SIMPLE", 4, 8, false, /*dropped=*/2);
    process.WriteTo(dir.File(FileOf(102)), /*dropped=*/3);
  }
  const Report report = ReportOf(dir.path());
  REQUIRE(report.coverage);
  const std::vector<CoverageGap>& gaps = report.coverage->gaps;
  REQUIRE(gaps.size() == 3);
  CHECK(gaps[0].kind == "plugin_not_attached");
  CHECK(gaps[0].file == FileOf(101));
  CHECK(gaps[0].causes == std::vector<std::string>{"NCCL profiler plugin not attached: NCCL never "
                                                   "called ncclProfiler_v5 init"});
  CHECK(gaps[1].kind == "wrappers_exceed_plugin");
  CHECK(gaps[1].detail == "the plugin saw 8 collectives, the wrappers 10");
  CHECK(gaps[1].causes == std::vector<std::string>{"records dropped (2 plugin events)"});
  CHECK(gaps[2].kind == "records_dropped");
  CHECK(gaps[2].causes ==
        std::vector<std::string>{"records dropped (3 wrapper events, 2 plugin events)"});
  CHECK(report.coverage->processes[0].plugin_attached == false);
  CHECK(report.coverage->processes[1].dropped_wrapper_events == 3);
}

TEST_CASE("drops per kind come from the Footer, which includes what batches reported") {
  ScratchDir dir;
  PluginTraceBuilder process("node1", 101, 0);
  process.AddInjection(true, 5);
  process.AddPluginComm(1, 0x77, "", 1, 0);
  process.AddPluginColls(1, "AllReduce", "RING", "SIMPLE", 4, 2, false, /*dropped=*/2);
  process.AddCommunicator(kWorld, 1, 0);
  process.AddWrapperCalls("ncclAllReduce", kWorld, 1, 0, 1, 2);
  process.WriteTo(dir.File(FileOf(101)), /*dropped=*/1, {{"nccl_plugin", 5}, {"cupti", 4}});
  const Report report = ReportOf(dir.path());
  const CoverageGap& gap = OnlyGap(report);
  CHECK(gap.kind == "records_dropped");
  CHECK(gap.detail == "10 records lost to full buffers");
  CHECK(gap.causes ==
        std::vector<std::string>{"records dropped (1 wrapper events, 5 plugin events, 4 CUPTI "
                                 "records)"});
  const CoverageProcess& row = report.coverage->processes.at(0);
  CHECK(row.dropped_wrapper_events == 1);
  CHECK(row.dropped_plugin_events == 5);
  CHECK(row.dropped_gpu_records == 4);
}

TEST_CASE("communication NCCL never sees: custom all-reduce kernels and CUDA IPC calls") {
  ScratchDir dir;
  PluginTraceBuilder process("node1", 101, 0);
  process.AddInjection(false, 0, "no NCCL in this process");
  process.AddKernels("void vllm::cross_device_reduce_1stage<float, 2>(...)", 4, 10000);
  process.AddApiCalls("cudaIpcOpenMemHandle", 3, 2000000);
  process.AddApiCalls("cudaIpcGetMemHandle", 3, 1000);
  process.AddApiCalls("cudaMalloc", 5, 1000);
  process.WriteTo(dir.File(FileOf(101)));

  const Report report = ReportOf(dir.path());
  REQUIRE(report.coverage);
  REQUIRE(report.coverage->processes.size() == 1);
  const CoverageProcess& row = report.coverage->processes[0];
  CHECK(row.custom_allreduce_kernels.count == 4);
  CHECK(row.custom_allreduce_kernels.total_ns == 40000);
  REQUIRE(row.ipc_calls.size() == 2);
  CHECK(row.ipc_calls.at("cudaIpcOpenMemHandle").count == 3);
  CHECK(row.ipc_calls.at("cudaIpcOpenMemHandle").total_ns == 6000000);
  CHECK(row.ipc_calls.at("cudaIpcGetMemHandle").total_ns == 3000);
  // No NCCL work: the plugin not attaching is no gap here.
  CHECK(report.coverage->gaps.empty());
  const std::string text = TextOf(report);
  INFO(text);
  CHECK(text.find("4, 40.0 µs") != std::string::npos);
  CHECK(text.find("  IPC: rank 0, node1.101.vtrace: cudaIpcGetMemHandle ×3 3.00 µs; "
                  "cudaIpcOpenMemHandle ×3 6.00 ms\n") != std::string::npos);
}

TEST_CASE("traces that say nothing of the plugin are not checked") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const Report report = ReportOf(dir.path());
  CHECK_FALSE(report.coverage);
  CHECK_FALSE(report.consistency);
  const JsonValue json = JsonOf(report);
  CHECK(json["coverage"].is_null());
  CHECK(json["consistency"].is_null());
  CHECK(json["processes"][1]["nccl_plugin"]["status"].is_null());
  CHECK_FALSE(json["processes"][1]["nccl_plugin"]["attached"].boolean());
  CHECK(TextOf(report).find("\nCoverage and consistency: not checked") != std::string::npos);
}

TEST_CASE("the one table of rules classes custom all-reduce kernels and CUDA IPC calls") {
  CHECK(KernelClassOf("void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(...)") ==
        kCustomAllReduceKernelClass);
  CHECK(KernelClassOf("_ZN4vllm26cross_device_reduce_1stageIfLi2EEEvPNS_8RankDataE") ==
        kCustomAllReduceKernelClass);
  for (const char* api : {"cudaIpcOpenMemHandle", "cudaIpcGetMemHandle", "cudaIpcCloseMemHandle",
                          "cudaIpcOpenEventHandle", "cuIpcOpenMemHandle_v2", "cuIpcGetMemHandle"}) {
    CHECK(ApiClassOf(api) == kIpcApiClass);
  }
  for (const char* api : {"cudaMalloc", "cudaLaunchKernel", "cuMemcpyPeerAsync"}) {
    CHECK(ApiClassOf(api) == kOtherApiClass);
  }
}

TEST_CASE("copies between GPUs are communication NCCL never sees, in the traces and in a merge") {
  ScratchDir dir, summaries;
  PluginTraceBuilder process("node1", 101, 0);
  process.AddInjection(false, 0, "no NCCL in this process");
  // Two PtoP copies (copy kind 10) of 3 MiB in 2.5 µs and 1 MiB in 1.5 µs, and a copy within
  // one GPU (DTOD, 8), which moves nothing between GPUs.
  vprof::trace::TracePacket packet;
  vprof::trace::GpuBatch& batch = *packet.mutable_gpu_batch();
  for (const auto& [kind, bytes, ns] :
       {std::tuple{10u, 3u << 20, 2500u}, std::tuple{8u, 512u, 700u},
        std::tuple{10u, 1u << 20, 1500u}}) {
    vprof::trace::GpuMemcpy& copy = *batch.add_memcpy();
    copy.set_copy_kind(kind);
    copy.set_bytes(bytes);
    copy.set_duration_ns(ns);
  }
  process.trace().AddPacket(std::move(packet));
  process.WriteTo(dir.File(FileOf(101)));

  const Report report = ReportOf(dir.path());
  REQUIRE(report.coverage);
  REQUIRE(report.coverage->processes.size() == 1);
  const CoverageProcess& row = report.coverage->processes[0];
  // 2 copies; 3 MiB + 1 MiB = 4,194,304 B; 2500 + 1500 = 4000 ns.
  CHECK(row.peer_copies.count == 2);
  CHECK(row.peer_copies.bytes == 4194304);
  CHECK(row.peer_copies.total_ns == 4000);
  CHECK(report.coverage->gaps.empty());
  const std::string text = TextOf(report);
  INFO(text);
  CHECK(Contains(text, "peer copies"));
  CHECK(Contains(text, "2, 4.00 MiB, 4.00 µs"));

  // A node summary carries them: the merged report has the same row.
  const std::string summary = summaries.File("node1.vsummary");
  REQUIRE(Run({"report", "--node-summary", summary, "--host", "node1", "--clock", "monotonic",
               dir.path()})
              .status == kExitOk);
  const CliResult merged = Run({"report", "--merge-summaries", summary, "--format", "json"});
  INFO(merged.err);
  REQUIRE(merged.status == kExitOk);
  const JsonValue json = JsonValue::Parse(merged.out);
  const JsonValue& peer = json["coverage"]["processes"][0]["peer_copies"];
  CHECK(peer["count"].number() == 2);
  CHECK(peer["bytes"].number() == 4194304);
  CHECK(peer["total_ns"].number() == 4000);
  CHECK(json["processes"][0]["gpu"]["peer_copies"]["bytes"].number() == 4194304);
}
