// `vprof export --format chrome` end to end: the two-rank run (two hosts whose
// clocks differ) read back with an independent parser, every time checked
// against the inputs moved to CLOCK_REALTIME by hand.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include "cli_runner.h"
#include "export_trace_builder.h"
#include "mini_json.h"
#include "reporter/cli/cli.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;
namespace run = vprof::reporter::testing::export_run;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The timeline's origin: the earlier process start on CLOCK_REALTIME. The
// builder's headers start at 0 on each trace clock.
constexpr int64_t kOrigin = std::min(run::kOffsetA, run::kOffsetB);

// Microseconds on the timeline of a rank's time `at_ns` after its base.
double Us(int rank, uint64_t at_ns) {
  const run::Rank& info = run::RankInfo(rank);
  const int64_t realtime = static_cast<int64_t>(info.base_ns + at_ns) + info.offset_ns;
  return static_cast<double>(realtime - kOrigin) / 1000.0;
}

// Exact to the nanosecond: the text has three decimals.
Approx Exactly(double us) { return Approx(us).epsilon(0).margin(0.0004); }

using Events = std::vector<const JsonValue*>;

Events Select(const JsonValue& document, const std::function<bool(const JsonValue&)>& keep) {
  Events selected;
  for (const JsonValue& event : document["traceEvents"].array()) {
    if (keep(event)) selected.push_back(&event);
  }
  return selected;
}

bool Has(const JsonValue& event, const std::string& key) { return event.object().count(key) > 0; }

Events OfPhase(const JsonValue& document, const std::string& phase, const std::string& cat) {
  return Select(document, [&](const JsonValue& event) {
    return event["ph"].string() == phase && Has(event, "cat") && event["cat"].string() == cat;
  });
}

const JsonValue& Named(const Events& events, const std::string& name, double pid) {
  const auto found = std::find_if(events.begin(), events.end(), [&](const JsonValue* event) {
    return (*event)["name"].string() == name && (*event)["pid"].number() == pid;
  });
  REQUIRE(found != events.end());
  return **found;
}

// The name a metadata event gives (process_name, thread_name) to pid/tid.
std::string MetadataName(const JsonValue& document, const std::string& kind, double pid,
                         double tid) {
  const Events names = Select(document, [&](const JsonValue& event) {
    return event["ph"].string() == "M" && event["name"].string() == kind &&
           event["pid"].number() == pid && event["tid"].number() == tid;
  });
  return names.size() == 1 ? (*names[0])["args"]["name"].string() : "";
}

// The flow event of `phase` with `id` in the flows of category `cat`.
const JsonValue& FlowEnd(const JsonValue& document, const std::string& cat,
                         const std::string& phase, const std::string& id) {
  const Events flows = OfPhase(document, phase, cat);
  const auto found = std::find_if(flows.begin(), flows.end(), [&](const JsonValue* flow) {
    return (*flow)["id"].string() == id;
  });
  REQUIRE(found != flows.end());
  return **found;
}

JsonValue ExportChrome(const std::string& directory, const std::string& file, int expected_status,
                       std::string* err = nullptr) {
  const CliResult result = Run({"export", "--format", "chrome", "-o", file, directory});
  CHECK(result.status == expected_status);
  CHECK(result.out.empty());
  if (err) *err = result.err;
  return JsonValue::Parse(ReadFile(file));
}

}  // namespace

TEST_CASE("chrome: processes by rank, on one clock, with their threads and GPU streams") {
  ScratchDir dir;
  run::Write(dir.path());
  std::string err;
  const JsonValue document = ExportChrome(dir.path(), dir.File("timeline.json"), 0, &err);
  CHECK(err.find("vprof: timeline written to " + dir.File("timeline.json")) != std::string::npos);

  CHECK(document["otherData"]["clock"].string() == "CLOCK_REALTIME");
  CHECK(ReadFile(dir.File("timeline.json")).find("\"origin_ns\": " + std::to_string(kOrigin)) !=
        std::string::npos);
  CHECK(MetadataName(document, "process_name", 0, 0) == "rank 0 (nodeA pid 100)");
  CHECK(MetadataName(document, "process_name", 1, 0) == "rank 1 (nodeB pid 200)");
  CHECK(MetadataName(document, "thread_name", 0, 11) == "python");

  CHECK(OfPhase(document, "X", "nccl").size() == 2);
  CHECK(OfPhase(document, "X", "nvtx").size() == 3);
  CHECK(OfPhase(document, "i", "nvtx").size() == 1);
  CHECK(OfPhase(document, "X", "cuda_runtime").size() == 5);
  CHECK(OfPhase(document, "X", "kernel").size() == 3);
  CHECK(OfPhase(document, "X", "gpu_memcpy").size() == 1);
  CHECK(OfPhase(document, "X", "nccl_plugin").size() == 1);
  // 3 kernel launches, the copy and the graph launch, on both ranks.
  CHECK(OfPhase(document, "s", "launch").size() == 5);
  CHECK(OfPhase(document, "f", "launch").size() == 5);
  CHECK(OfPhase(document, "s", "nccl_call").size() == 2);
  CHECK(OfPhase(document, "f", "nccl_call").size() == 2);

  // Rank 1's all-reduce, on host B's clock moved to CLOCK_REALTIME.
  const JsonValue& call = Named(OfPhase(document, "X", "nccl"), "ncclAllReduce", 1);
  CHECK(call["tid"].number() == 21);
  CHECK(call["ts"].number() == Exactly(Us(1, 5400)));
  CHECK(call["dur"].number() == Exactly(1.2));
  CHECK(call["args"]["comm id"].string() == "0xc0ffee");
  CHECK(call["args"]["seq"].number() == 1);
  CHECK(call["args"]["count"].number() == run::kCount);
  CHECK(call["args"]["bytes"].number() == run::kBytes);
  CHECK(call["args"]["datatype"].string() == "ncclFloat32");
  CHECK(call["args"]["stream"].string() == "0x7f00");
  CHECK(call["args"]["result"].number() == 0);
  const JsonValue& call0 = Named(OfPhase(document, "X", "nccl"), "ncclAllReduce", 0);
  CHECK(call0["ts"].number() == Exactly(Us(0, 5500)));

  // Its kernel, demangled, on the NCCL stream's track.
  const JsonValue& kernel =
      Named(OfPhase(document, "X", "kernel"), std::string(run::kNcclKernelName), 0);
  const double track = kernel["tid"].number();
  CHECK(MetadataName(document, "thread_name", 0, track) == "stream 13 (GPU 0)");
  CHECK(kernel["ts"].number() == Exactly(Us(0, 7000)));
  CHECK(kernel["dur"].number() == Exactly(2.0));
  CHECK(kernel["args"]["correlation"].number() == 21);
  CHECK(kernel["args"]["grid"][0].number() == 2);
  CHECK(kernel["args"]["grid"][1].number() == 1);
  CHECK(kernel["args"]["block"][0].number() == 640);
  CHECK(kernel["args"]["nccl call"].string() == "ncclAllReduce");

  const JsonValue& gemm = Named(OfPhase(document, "X", "kernel"), "gemm", 0);
  CHECK(gemm["tid"].number() != track);  // another stream, another track
  CHECK(MetadataName(document, "thread_name", 0, gemm["tid"].number()) == "stream 7 (GPU 0)");
  CHECK_FALSE(Has(gemm["args"], "nccl call"));

  const JsonValue& copy =
      Named(OfPhase(document, "X", "gpu_memcpy"), "Memcpy HtoD (Pageable -> Device)", 0);
  CHECK(copy["ts"].number() == Exactly(Us(0, 3200)));
  CHECK(copy["args"]["bytes"].number() == 4096);
  CHECK(copy["tid"].number() == gemm["tid"].number());

  const JsonValue& launch =
      Named(OfPhase(document, "X", "cuda_runtime"), "cudaLaunchKernel_v7000", 1);
  CHECK(launch["ts"].number() == Exactly(Us(1, 5600)));
  CHECK(launch["args"]["nccl call id"].number() == 1);
}

TEST_CASE("chrome: arrows from each NCCL call and each launch to its kernel") {
  ScratchDir dir;
  run::Write(dir.path());
  const JsonValue document = ExportChrome(dir.path(), dir.File("timeline.json"), 0);

  std::vector<std::string> ids;
  for (int rank = 0; rank < 2; ++rank) {
    const run::Rank& info = run::RankInfo(rank);
    const JsonValue& kernel =
        Named(OfPhase(document, "X", "kernel"), std::string(run::kNcclKernelName), rank);
    const Events starts = OfPhase(document, "s", "nccl_call");
    const auto start = std::find_if(starts.begin(), starts.end(), [&](const JsonValue* flow) {
      return (*flow)["pid"].number() == rank;
    });
    REQUIRE(start != starts.end());
    // Starts in the call (its thread, its enter), ends in the kernel.
    CHECK((**start)["tid"].number() == info.tid);
    CHECK((**start)["ts"].number() == Exactly(Us(rank, info.call_enter)));
    const std::string id = (**start)["id"].string();
    ids.push_back(id);
    const JsonValue& end = FlowEnd(document, "nccl_call", "f", id);
    CHECK(end["pid"].number() == rank);
    CHECK(end["tid"].number() == kernel["tid"].number());
    CHECK(end["ts"].number() == Exactly(kernel["ts"].number()));
    CHECK(end["bp"].string() == "e");
  }
  CHECK(ids[0] != ids[1]);  // flow ids are unique in the document, not per process

  // The launch of "gemm" (correlation 22) on rank 0.
  const JsonValue& launch =
      Named(OfPhase(document, "X", "cuda_runtime"), "cudaLaunchKernel_v7000", 0);
  const Events launches = Select(document, [&](const JsonValue& event) {
    return event["ph"].string() == "s" && event["cat"].string() == "launch" &&
           event["pid"].number() == 0 && event["ts"].number() == Exactly(Us(0, 2000));
  });
  REQUIRE(launches.size() == 1);
  CHECK((*launches[0])["tid"].number() == 11);
  const JsonValue& end = FlowEnd(document, "launch", "f", (*launches[0])["id"].string());
  CHECK(end["ts"].number() == Exactly(Us(0, 2500)));
  CHECK(end["tid"].number() == Named(OfPhase(document, "X", "kernel"), "gemm", 0)["tid"].number());
  CHECK(launch["pid"].number() == 0);
}

TEST_CASE("chrome: a graph replay recorded whole is one slice on its stream, its launch's arrow") {
  ScratchDir dir;
  run::Write(dir.path());
  const JsonValue document = ExportChrome(dir.path(), dir.File("timeline.json"), 0);
  const JsonValue& replay =
      Named(OfPhase(document, "X", "graph_replay"), "CUDA graph 4 (recorded whole)", 0);
  CHECK(replay["ts"].number() == Exactly(Us(0, 7000)));
  CHECK(replay["dur"].number() == Exactly(0.8));
  CHECK(replay["args"]["graph id"].number() == 4);
  CHECK(replay["args"]["correlation"].number() == 24);
  // On the gemm's stream, and the cudaGraphLaunch's arrow ends in it.
  CHECK(replay["tid"].number() ==
        Named(OfPhase(document, "X", "kernel"), "gemm", 0)["tid"].number());
  const Events launches = Select(document, [&](const JsonValue& event) {
    return event["ph"].string() == "s" && event["cat"].string() == "launch" &&
           event["pid"].number() == 0 && event["ts"].number() == Exactly(Us(0, 6500));
  });
  REQUIRE(launches.size() == 1);
  const JsonValue& end = FlowEnd(document, "launch", "f", (*launches[0])["id"].string());
  CHECK(end["ts"].number() == Exactly(Us(0, 7000)));
  CHECK(end["tid"].number() == replay["tid"].number());
  // A replay CUPTI could not time is not drawn.
  CHECK(OfPhase(document, "X", "graph_replay").size() == 1);
}

TEST_CASE("chrome: vprof's own kernels are drawn under a category of their own") {
  ScratchDir dir;
  run::Write(dir.path());
  const JsonValue document = ExportChrome(dir.path(), dir.File("timeline.json"), 0);
  const Events own = OfPhase(document, "X", "vprof_kernel");
  REQUIRE(own.size() == 1);
  const JsonValue& calibration = Named(own, std::string(run::kCalibrationKernel), 0);
  CHECK(calibration["ts"].number() == Exactly(Us(0, 300)));
  CHECK(calibration["dur"].number() == Exactly(0.002));
  for (const JsonValue* kernel : OfPhase(document, "X", "kernel")) {
    CHECK((*kernel)["name"].string() != run::kCalibrationKernel);
  }
}

TEST_CASE("chrome: NVTX ranges and marks on their thread, plugin collectives per communicator") {
  ScratchDir dir;
  run::Write(dir.path());
  const JsonValue document = ExportChrome(dir.path(), dir.File("timeline.json"), 0);

  const Events ranges = OfPhase(document, "X", "nvtx");
  const JsonValue& step = Named(ranges, "step", 0);
  CHECK(step["tid"].number() == 11);
  CHECK(step["ts"].number() == Exactly(Us(0, 1000)));
  CHECK(step["dur"].number() == Exactly(8.0));
  const JsonValue& forward = Named(ranges, "forward", 0);
  CHECK(forward["ts"].number() == Exactly(Us(0, 1500)));
  CHECK(forward["dur"].number() == Exactly(2.5));
  CHECK(Named(ranges, "step", 1)["ts"].number() == Exactly(Us(1, 1000)));

  // A start/end range may end on another thread and overlap what it does not
  // enclose: an async slice of the process, begun on the thread that started it.
  const JsonValue& begin = *OfPhase(document, "b", "nvtx").at(0);
  const JsonValue& end = *OfPhase(document, "e", "nvtx").at(0);
  CHECK(begin["name"].string() == "load");
  CHECK(begin["pid"].number() == 1);
  CHECK(begin["tid"].number() == 22);
  CHECK(begin["ts"].number() == Exactly(Us(1, 500)));
  CHECK(end["ts"].number() == Exactly(Us(1, 8000)));
  CHECK(end["id"].string() == begin["id"].string());

  const JsonValue& mark = *OfPhase(document, "i", "nvtx").at(0);
  CHECK(mark["name"].string() == "checkpoint");
  CHECK(mark["s"].string() == "t");
  CHECK(mark["ts"].number() == Exactly(Us(0, 5000)));

  const JsonValue& coll = *OfPhase(document, "X", "nccl_plugin").at(0);
  CHECK(coll["name"].string() == "AllReduce");
  CHECK(coll["ts"].number() == Exactly(Us(0, 5550)));
  CHECK(coll["dur"].number() == Exactly(0.85));
  CHECK(coll["args"]["algorithm"].string() == "RING");
  CHECK(coll["args"]["protocol"].string() == "LL");
  CHECK(coll["args"]["channels"].number() == 2);
  CHECK(MetadataName(document, "thread_name", 0, coll["tid"].number()) ==
        "NCCL plugin: world 0xabc (rank 0 of 2)");
}

TEST_CASE("chrome: a cut trace is named, exits 3, and what was read of it is exported") {
  ScratchDir dir;
  run::Trace(0).WriteTo(dir.File(run::FileName(0)));
  // Rank 1 cut inside the event batch of its all-reduce (the packet before the
  // footer): its kernel, read earlier, never meets its call.
  const TraceFileBuilder cut = run::Trace(1);
  const auto& offsets = cut.packet_offsets();
  const uint64_t batch_start = offsets[offsets.size() - 2];
  cut.WriteTo(dir.File(run::FileName(1)), batch_start + 5);

  std::string err;
  const JsonValue document = ExportChrome(dir.path(), dir.File("timeline.json"), 3, &err);
  CHECK(err.find("vprof: " + dir.File(run::FileName(1)) + ": cut at byte " +
                 std::to_string(batch_start)) != std::string::npos);

  CHECK(OfPhase(document, "X", "nccl").size() == 1);  // rank 0's
  const JsonValue& kernel =
      Named(OfPhase(document, "X", "kernel"), std::string(run::kNcclKernelName), 1);
  CHECK(kernel["ts"].number() == Exactly(Us(1, 7100)));
  CHECK_FALSE(Has(kernel["args"], "nccl call"));
  CHECK(Named(OfPhase(document, "X", "nvtx"), "step", 1)["ts"].number() == Exactly(Us(1, 1000)));
  CHECK(OfPhase(document, "s", "nccl_call").size() == 1);
  CHECK(OfPhase(document, "X", "kernel").size() == 3);
}

TEST_CASE("chrome: each GPU's device memory held is a counter, in time order") {
  ScratchDir dir;
  TraceFileBuilder trace("node9", 9, 0);
  // Read out of time order, as CUPTI's buffers come: +3000 at 300 before
  // +1000 at 100. GPU 1 gets 64 bytes; pinned host memory (kind 2) is none.
  const uint64_t base = 5'000'000;
  ExportGpuBatch(trace)
      .Memory(false, 3000, base + 300, 1, 0)
      .Memory(false, 1000, base + 100, 2, 0)
      .Memory(true, 1000, base + 500, 3, 0)
      .Memory(false, 64, base + 200, 4, 1)
      .Memory(false, 4096, base + 250, 5, 0, 2)
      .Write();
  trace.AddFooter();
  trace.WriteTo(dir.File("node9.9.vtrace"));
  const JsonValue document = ExportChrome(dir.path(), dir.File("timeline.json"), 0);
  const Events counters = OfPhase(document, "C", "gpu_memory");
  REQUIRE(counters.size() == 4);
  std::vector<std::pair<std::string, double>> values;
  for (const JsonValue* counter : counters) {
    values.emplace_back((*counter)["name"].string(), (*counter)["args"]["bytes"].number());
  }
  CHECK(values == std::vector<std::pair<std::string, double>>{{"GPU 0 memory held", 1000},
                                                              {"GPU 0 memory held", 4000},
                                                              {"GPU 0 memory held", 3000},
                                                              {"GPU 1 memory held", 64}});
  // 100 ns → 300 ns → 500 ns: 0.2 µs apart.
  CHECK((*counters[1])["ts"].number() - (*counters[0])["ts"].number() == Exactly(0.2));
  CHECK((*counters[2])["ts"].number() - (*counters[1])["ts"].number() == Exactly(0.2));
}

TEST_CASE("chrome: the document is JSON to Python's parser too") {
  if (std::system("python3 -c 'import json' >/dev/null 2>&1") != 0) return;  // no python3 here
  ScratchDir dir;
  run::Write(dir.path());
  ExportChrome(dir.path(), dir.File("timeline.json"), 0);
  const std::string check =
      "python3 -c 'import json, sys; json.load(open(sys.argv[1]))' " + dir.File("timeline.json");
  CHECK(std::system(check.c_str()) == 0);
}

TEST_CASE("chrome: a communicator's creation carries its size and rank from its Communicator") {
  // NCCL says the size only once the call returns: the capture records the call with size 0,
  // and the communicator, with its size and the caller's rank, in its own packet before it.
  ScratchDir dir;
  TraceFileBuilder trace("solo", 7, 2);
  trace.AddCommunicator(0xABC, 4, 2, "ncclCommInitRank", 100, 900);
  trace.AddBatch({trace.Event("ncclCommInitRank", 0xABC, 0, 0, 0, 0, 100, 900),
                  trace.Event("ncclAllReduce", 0xABC, 4, 2, 1, 4096, 1000, 2000)});
  trace.AddFooter();
  trace.WriteTo(dir.File("solo.7.vtrace"));
  const JsonValue document = ExportChrome(dir.path(), dir.File("t.json"), 0);
  const JsonValue& init = Named(OfPhase(document, "X", "nccl"), "ncclCommInitRank", 0);
  CHECK(init["args"]["comm size"].number() == 4);
  CHECK(init["args"]["comm rank"].number() == 2);
  CHECK(Named(OfPhase(document, "X", "nccl"), "ncclAllReduce", 0)["args"]["comm size"].number() ==
        4);
}
