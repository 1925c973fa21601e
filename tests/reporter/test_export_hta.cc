// `vprof export --format hta` end to end: one Kineto-style file per rank that
// Holistic Trace Analysis reads, checked for what HTA's parser relies on
// (the rank pattern it greps for, categories, the "stream" argument that
// marks GPU events, correlation and External id, ac2g flows) and for times
// against the inputs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "export_trace_builder.h"
#include "gpu_batch_builder.h"
#include "mini_json.h"
#include "reporter/cli/cli.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;
namespace run = vprof::reporter::testing::export_run;

namespace {

int Run(const std::vector<std::string>& args, std::string* err = nullptr) {
  std::ostringstream out, errors;
  const int status = RunCli(args, out, errors);
  if (err) *err = errors.str();
  return status;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

constexpr int64_t kOrigin = std::min(run::kOffsetA, run::kOffsetB);

double Us(int rank, uint64_t at_ns) {
  const run::Rank& info = run::RankInfo(rank);
  const int64_t realtime = static_cast<int64_t>(info.base_ns + at_ns) + info.offset_ns;
  return static_cast<double>(realtime - kOrigin) / 1000.0;
}

Approx Exactly(double us) { return Approx(us).epsilon(0).margin(0.0004); }

using Events = std::vector<const JsonValue*>;

bool Has(const JsonValue& event, const std::string& key) { return event.object().count(key) > 0; }

Events OfCategory(const JsonValue& document, const std::string& phase, const std::string& cat) {
  Events selected;
  for (const JsonValue& event : document["traceEvents"].array()) {
    if (event["ph"].string() == phase && Has(event, "cat") && event["cat"].string() == cat) {
      selected.push_back(&event);
    }
  }
  return selected;
}

const JsonValue& Named(const Events& events, const std::string& name) {
  const auto found = std::find_if(events.begin(), events.end(), [&](const JsonValue* event) {
    return (*event)["name"].string() == name;
  });
  REQUIRE(found != events.end());
  return **found;
}

// What HTA's create_rank_to_trace_dict does: the first line matching
// "rank":\s+(\d+) gives the file's rank.
std::optional<int> RankAsHtaFindsIt(const std::string& text) {
  static const std::regex pattern(R"("rank":\s+(\d+))");
  std::istringstream lines(text);
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, match, pattern)) return std::stoi(match[1]);
  }
  return std::nullopt;
}

// HTA's communication kernel pattern (hta/common/types.py), matched at the start.
bool HtaSeesCommunication(const std::string& kernel_name) {
  static const std::regex pattern("(nccl.*)|(hip)|(hccl)|(.*ncclKernel.*)");
  std::smatch match;
  return std::regex_search(kernel_name, match, pattern, std::regex_constants::match_continuous);
}

}  // namespace

TEST_CASE("hta: one file per rank with the metadata HTA reads") {
  ScratchDir dir;
  run::Write(dir.path());
  std::string err;
  const std::string out = dir.File("hta");
  CHECK(Run({"export", "--format", "hta", "-o", out, dir.path()}, &err) == 0);
  CHECK(err.find("vprof: hta traces of 2 ranks written to " + out) != std::string::npos);

  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"rank-0.json", "rank-1.json"});

  for (int rank = 0; rank < 2; ++rank) {
    const std::string text = ReadFile(out + "/rank-" + std::to_string(rank) + ".json");
    CHECK(RankAsHtaFindsIt(text) == rank);
    const JsonValue document = JsonValue::Parse(text);
    CHECK(document["schemaVersion"].number() == 1);
    CHECK(document["deviceProperties"].array().empty());
    CHECK(document["distributedInfo"]["backend"].string() == "nccl");
    CHECK(document["distributedInfo"]["rank"].number() == rank);
    CHECK(document["distributedInfo"]["world_size"].number() == 2);
    // ts × 1000 + baseTimeNanoseconds is Unix time in ns, as in Kineto.
    CHECK(text.find("\"baseTimeNanoseconds\": " + std::to_string(kOrigin) + ",") !=
          std::string::npos);
  }
}

TEST_CASE("hta: Kineto's categories, pids, args and flows") {
  ScratchDir dir;
  run::Write(dir.path());
  const std::string out = dir.File("hta");
  REQUIRE(Run({"export", "--format", "hta", "-o", out, dir.path()}) == 0);
  const JsonValue document = JsonValue::Parse(ReadFile(out + "/rank-0.json"));
  const run::Rank& info = run::RankInfo(0);

  // The NCCL call: a CPU operator on the OS pid and tid, without "stream"
  // (HTA takes events with a stream for GPU events).
  const JsonValue& call = Named(OfCategory(document, "X", "cpu_op"), "ncclAllReduce");
  CHECK(call["pid"].number() == info.pid);
  CHECK(call["tid"].number() == info.tid);
  CHECK(call["ts"].number() == Exactly(Us(0, 5500)));
  CHECK(call["dur"].number() == Exactly(1.0));
  CHECK_FALSE(Has(call["args"], "stream"));
  CHECK(call["args"]["External id"].number() == run::kCallId);
  CHECK(call["args"]["Collective name"].string() == "ncclAllReduce");
  CHECK(call["args"]["In msg nelems"].number() == run::kCount);
  CHECK(call["args"]["Out msg nelems"].number() == run::kCount);
  CHECK(call["args"]["Group size"].number() == 2);
  CHECK(call["args"]["dtype"].string() == "ncclFloat32");
  CHECK(call["args"]["Process Group Name"].string() == "0xc0ffee");

  // Its kernel: named as CUPTI named it, demangled as Kineto does, which
  // HTA's classifier counts as communication; on (device, stream).
  // A graph replay recorded whole is a kernel slice to HTA, named as such.
  // vprof's own calibration kernel is not written at all: HTA takes any event
  // with a stream for GPU work, whatever its category.
  const Events kernels = OfCategory(document, "X", "kernel");
  REQUIRE(kernels.size() == 3);
  for (const JsonValue& event : document["traceEvents"].array()) {
    CHECK(event["name"].string() != run::kCalibrationKernel);
    if (Has(event, "args") && Has(event["args"], "stream")) {
      CHECK(event["args"]["stream"].number() != run::kCalibrationStream);
    }
  }
  const JsonValue& replay = Named(kernels, "CUDA graph 4 (recorded whole)");
  CHECK(replay["tid"].number() == run::kComputeStream);
  CHECK(replay["ts"].number() == Exactly(Us(0, 7000)));
  CHECK(replay["dur"].number() == Exactly(0.8));
  CHECK(replay["args"]["graph id"].number() == 4);
  CHECK(replay["args"]["correlation"].number() == 24);
  const JsonValue& kernel = Named(kernels, std::string(run::kNcclKernelName));
  CHECK(HtaSeesCommunication(kernel["name"].string()));
  CHECK_FALSE(HtaSeesCommunication(std::string(run::kNcclKernelMangled)));
  CHECK_FALSE(HtaSeesCommunication("gemm"));
  CHECK(kernel["pid"].number() == 0);
  CHECK(kernel["tid"].number() == run::kNcclStream);
  CHECK(kernel["ts"].number() == Exactly(Us(0, 7000)));
  CHECK(kernel["dur"].number() == Exactly(2.0));
  CHECK(kernel["args"]["stream"].number() == run::kNcclStream);
  CHECK(kernel["args"]["device"].number() == 0);
  CHECK(kernel["args"]["correlation"].number() == info.nccl_correlation);
  CHECK(kernel["args"]["External id"].number() == run::kCallId);
  CHECK(kernel["args"]["Collective name"].string() == "ncclAllReduce");
  CHECK(kernel["args"]["grid"][0].number() == 2);
  CHECK(kernel["args"]["block"][0].number() == 640);
  const JsonValue& gemm = Named(kernels, "gemm");
  CHECK_FALSE(Has(gemm["args"], "External id"));
  CHECK_FALSE(Has(gemm["args"], "Collective name"));
  CHECK(gemm["tid"].number() == run::kComputeStream);

  // Runtime calls under the names HTA's launch statistics look for.
  const Events runtime = OfCategory(document, "X", "cuda_runtime");
  REQUIRE(runtime.size() == 4);
  CHECK(Named(runtime, "cudaGraphLaunch")["args"]["correlation"].number() == 24);
  CHECK(std::count_if(runtime.begin(), runtime.end(), [](const JsonValue* event) {
          return (*event)["name"].string() == "cudaLaunchKernel";
        }) == 2);
  const JsonValue& copy_call = Named(runtime, "cudaMemcpyAsync");
  CHECK(copy_call["args"]["correlation"].number() == 23);
  CHECK_FALSE(Has(copy_call["args"], "stream"));
  CHECK_FALSE(Has(copy_call["args"], "External id"));

  const JsonValue& copy = *OfCategory(document, "X", "gpu_memcpy").at(0);
  CHECK(copy["name"].string() == "Memcpy HtoD (Pageable -> Device)");
  CHECK(copy["args"]["bytes"].number() == 4096);
  CHECK(copy["args"]["stream"].number() == run::kComputeStream);
  CHECK(copy["ts"].number() == Exactly(Us(0, 3200)));

  // ac2g: from the launch (CPU) to the kernel (GPU), by correlation id.
  const Events starts = OfCategory(document, "s", "ac2g");
  const Events ends = OfCategory(document, "f", "ac2g");
  CHECK(starts.size() == 4);  // the graph launch's arrow too
  CHECK(ends.size() == 4);
  const auto with_id = [](const Events& flows, double id) -> const JsonValue& {
    const auto found = std::find_if(flows.begin(), flows.end(), [&](const JsonValue* flow) {
      return (*flow)["id"].number() == id;
    });
    REQUIRE(found != flows.end());
    return **found;
  };
  const JsonValue& start = with_id(starts, info.nccl_correlation);
  CHECK(start["pid"].number() == info.pid);
  CHECK(start["tid"].number() == info.tid);
  CHECK(start["ts"].number() == Exactly(Us(0, info.launch_start)));
  const JsonValue& end = with_id(ends, info.nccl_correlation);
  CHECK(end["pid"].number() == 0);
  CHECK(end["tid"].number() == run::kNcclStream);
  CHECK(end["ts"].number() == Exactly(Us(0, 7000)));
  CHECK(end["bp"].string() == "e");

  // NVTX as user annotations; the mark as an instant; no plugin events. The step range, which
  // has no number, is PyTorch's first step, so that HTA finds the iteration.
  const JsonValue& step = Named(OfCategory(document, "X", "user_annotation"), "ProfilerStep#0");
  CHECK(step["ts"].number() == Exactly(Us(0, 1000)));
  CHECK(step["args"]["nvtx name"].string() == "step");
  CHECK(Named(OfCategory(document, "X", "user_annotation"), "forward")["dur"].number() ==
        Exactly(2.5));
  CHECK(OfCategory(document, "i", "cpu_instant_event").size() == 1);
  CHECK(OfCategory(document, "X", "nccl_plugin").empty());
}

TEST_CASE("hta: a kernel read before its call still carries the call") {
  ScratchDir dir;
  run::Write(dir.path());
  const std::string out = dir.File("hta");
  REQUIRE(Run({"export", "--format", "hta", "-o", out, dir.path()}) == 0);
  const JsonValue document = JsonValue::Parse(ReadFile(out + "/rank-1.json"));
  const JsonValue& kernel =
      Named(OfCategory(document, "X", "kernel"), std::string(run::kNcclKernelName));
  CHECK(kernel["ts"].number() == Exactly(Us(1, 7100)));
  CHECK(kernel["args"]["External id"].number() == run::kCallId);
  CHECK(kernel["args"]["Collective name"].string() == "ncclAllReduce");
  CHECK(kernel["args"]["Rank"].number() == 1);
  const JsonValue& call = Named(OfCategory(document, "X", "cpu_op"), "ncclAllReduce");
  CHECK(call["ts"].number() == Exactly(Us(1, 5400)));
  // A start/end range, on the thread that started it.
  const JsonValue& load = Named(OfCategory(document, "X", "user_annotation"), "load");
  CHECK(load["tid"].number() == 22);
  CHECK(load["ts"].number() == Exactly(Us(1, 500)));
  CHECK(load["dur"].number() == Exactly(7.5));
}

TEST_CASE("hta: the one GPU process of a job without ranks is rank 0") {
  // A plain training script: no NCCL, no RANK; its launcher-less trace and a helper process
  // without kernels. Only the GPU process is exported, as rank 0 of 1.
  ScratchDir dir;
  TraceFileBuilder script("node1", 300);
  GpuBatchBuilder(script).Kernel("gemm", 1000, 1).Write();
  script.AddFooter();
  script.WriteTo(dir.File("node1.300.vtrace"));
  TraceFileBuilder helper("node1", 301);
  helper.AddFooter();
  helper.WriteTo(dir.File("node1.301.vtrace"));
  const std::string out = dir.File("hta");
  REQUIRE(Run({"export", "--format", "hta", "-o", out, dir.path()}) == 0);
  CHECK(std::filesystem::exists(out + "/rank-0.json"));
  CHECK_FALSE(std::filesystem::exists(out + "/rank-1.json"));
  const JsonValue document = JsonValue::Parse(ReadFile(out + "/rank-0.json"));
  CHECK(document["distributedInfo"]["rank"].number() == 0);
  CHECK(document["distributedInfo"]["world_size"].number() == 1);
  CHECK(OfCategory(document, "X", "kernel").size() == 1);
}

TEST_CASE("hta: one host keeps CLOCK_MONOTONIC, as the report does") {
  ScratchDir dir;
  constexpr uint64_t kEnter = 30'000'123'456;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    TraceFileBuilder trace("nodeA", 300 + rank);
    trace.AddClockSample(kEnter, kEnter + static_cast<uint64_t>(run::kOffsetA));
    trace.AddCommunicator(run::kComm, 2, rank, "ncclCommInitRank");
    AddEventBatch(
        trace, 5,
        {trace.Event("ncclAllReduce", run::kComm, 2, rank, 1, 64, kEnter + rank, kEnter + 1000)});
    trace.AddFooter();
    trace.WriteTo(dir.File("nodeA." + std::to_string(300 + rank) + ".vtrace"));
  }
  const std::string out = dir.File("hta");
  REQUIRE(Run({"export", "--format", "hta", "-o", out, dir.path()}) == 0);
  for (uint32_t rank = 0; rank < 2; ++rank) {
    const std::string text = ReadFile(out + "/rank-" + std::to_string(rank) + ".json");
    const JsonValue document = JsonValue::Parse(text);
    // The headers start at 0, so times stay as recorded.
    const JsonValue& call = Named(OfCategory(document, "X", "cpu_op"), "ncclAllReduce");
    CHECK(call["ts"].number() == Exactly(static_cast<double>(kEnter + rank) / 1000.0));
    CHECK(text.find("\"baseTimeNanoseconds\": " + std::to_string(run::kOffsetA) + ",") !=
          std::string::npos);
  }
}

TEST_CASE("hta: a cut trace exits 3 and is still exported as far as it was read") {
  ScratchDir dir;
  run::Trace(0).WriteTo(dir.File(run::FileName(0)));
  // Rank 1 cut inside its footer: everything else of it was read. (Cut
  // before its first NCCL event, a process has no rank, as in the report.)
  const TraceFileBuilder cut = run::Trace(1);
  cut.WriteTo(dir.File(run::FileName(1)), cut.packet_offsets().back() + 2);
  TraceFileBuilder launcher("nodeA", 99);  // no NCCL calls: no rank
  launcher.AddFooter();
  launcher.WriteTo(dir.File("nodeA.99.vtrace"));

  std::string err;
  const std::string out = dir.File("hta");
  CHECK(Run({"export", "--format", "hta", "-o", out, dir.path()}, &err) == 3);
  CHECK(err.find("vprof: " + dir.File(run::FileName(1)) + ": cut at byte " +
                 std::to_string(cut.packet_offsets().back())) != std::string::npos);
  CHECK(err.find("vprof: " + dir.File("nodeA.99.vtrace") + ": no rank") != std::string::npos);
  CHECK(std::filesystem::exists(out + "/rank-0.json"));
  const JsonValue rank1 = JsonValue::Parse(ReadFile(out + "/rank-1.json"));
  CHECK(rank1["distributedInfo"]["rank"].number() == 1);
  const JsonValue& kernel =
      Named(OfCategory(rank1, "X", "kernel"), std::string(run::kNcclKernelName));
  CHECK(kernel["args"]["Collective name"].string() == "ncclAllReduce");
  CHECK(Named(OfCategory(rank1, "X", "cpu_op"), "ncclAllReduce")["ts"].number() ==
        Exactly(Us(1, 5400)));
}
