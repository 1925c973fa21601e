// The "Steps" text section and the "steps" JSON member, for one rank whose
// steps have known figures, and the default step patterns.
#include <catch2/catch.hpp>
#include <sstream>

#include "mini_json.h"
#include "reporter/render/json/json_page.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/steps/step_patterns.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "step_trace.h"
#include "unwrapped.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// Two steps at k*1000 µs, range "ProfilerStep#k" [o, o+300]: gemm s7 launch
// 10 [100,200]; all-reduce s13 (call 7+k, 4 MiB) launch 20 [150,260]; gemm s7
// launch 30 [260,300]. Window 300: idle 100 (host-bound), compute 100+40 =
// 140, all-reduce under compute [150,200) 50 overlapped, alone [200,260) 60
// exposed, blocking (the second gemm was launched at 30 < 260); no compute
// launched while it ran: nothing_to_overlap.
Report WriteAndReport(const std::string& directory) {
  StepTrace trace("node1", 100, 0, 0xABC);
  for (int64_t k = 0; k < 2; ++k) {
    const int64_t o = k * 1000;
    trace.Range("ProfilerStep#" + std::to_string(k), o, o + 300);
    trace.Kernel(kGemmKernel, 7, o + 10, o + 100, o + 200);
    trace.Kernel(kAllReduceKernel, 13, o + 20, o + 150, o + 260, static_cast<uint64_t>(7 + k),
                 4 << 20);
    trace.Kernel(kGemmKernel, 7, o + 30, o + 260, o + 300);
  }
  trace.WriteTo(directory + "/rank0.vtrace");
  return StepReportOf(directory, 1);
}

}  // namespace

TEST_CASE("default step patterns take step names and leave look-alikes") {
  const StepPatterns defaults;
  for (const char* name : {"step", "Step", "step 3", "step_12", "train_step", "training step 4",
                           "ProfilerStep#3", "vprof.step", "vprof.step 7"}) {
    INFO(name);
    CHECK(defaults.Matches(name));
  }
  for (const char* name :
       {"step_time", "steps", "stepper", "Optimizer.step#Adam.step", "optimizer.step",
        "lr_scheduler.step", "optimizer_step", "eval_step", "ProfilerStep"}) {
    INFO(name);
    CHECK_FALSE(defaults.Matches(name));
  }
  CHECK(StepPatternError({"("}).value().starts_with("--step-pattern '(' is not a valid"));
  CHECK_FALSE(StepPatternError({"fwd|bwd"}));
}

TEST_CASE("steps in the JSON report") {
  ScratchDir dir;
  const Report report = WriteAndReport(dir.path());
  std::ostringstream out;
  WriteJsonReport(report, out);
  const JsonValue json = JsonValue::Parse(out.str());
  const JsonValue& steps = json["steps"];
  CHECK(steps["source"].string() == "nvtx");
  CHECK(steps["problem"].string().empty());
  CHECK(steps["window"].string() == "step 1 of 2 (step 0, warmup, left out)");
  // The program's own numbers: ProfilerStep#0 is index 0.
  CHECK(steps["first_step_number"].number() == 0);
  CHECK(steps["program_step_numbers"].boolean());
  CHECK(steps["steps_found"].number() == 2);
  CHECK(steps["median_step_ns"].number() == 300'000);
  CHECK(steps["full_steps"][0]["step"].number() == 1);
  CHECK(steps["full_steps"][0]["slowest_rank"].number() == 0);
  const JsonValue& rank = steps["ranks"][0];
  CHECK(rank["rank"].number() == 0);
  CHECK(rank["bucket_plan_stable"].boolean());
  const JsonValue& total = rank["total"];
  CHECK(total["window_ns"].number() == 300'000);
  CHECK(total["compute_ns"].number() == 140'000);
  CHECK(total["exposed_comm_ns"].number() == 60'000);
  CHECK(total["exposed_comm_blocking_ns"].number() == 60'000);
  CHECK(total["overlapped_comm_ns"].number() == 50'000);
  CHECK(total["idle_host_bound_ns"].number() == 100'000);
  CHECK(total["exposed_by_reason_ns"]["nothing_to_overlap"].number() == 60'000);
  CHECK(total["exposed_by_comm_ns"][0]["comm_id"].string() == "0xabc");
  const JsonValue& bucket = rank["steps"][0]["buckets"][0];
  CHECK(bucket["op"].string() == "ncclAllReduce");
  CHECK(bucket["bytes"].number() == 4 << 20);
  CHECK(bucket["offset_ns"].number() == 150'000);
  CHECK(bucket["exposed_ns"].number() == 60'000);
  // Step 1's all-reduce is its second launch: correlation 3 + 2 = 5.
  CHECK(rank["longest_exposed_comm"]["id"].string() == "correlation:5");
  CHECK(rank["streams"][1]["role"].string() == "communication");
}

TEST_CASE("steps in the text report") {
  ScratchDir dir;
  const Report report = WriteAndReport(dir.path());
  std::ostringstream out;
  WriteTextReport(report, out);
  const std::string text = out.str();
  const size_t section = text.find("\nSteps (");
  REQUIRE(section != std::string::npos);
  const std::string steps = text.substr(section);
  CHECK(steps.find("window: step 1 of 2 (step 0, warmup, left out)") != std::string::npos);
  // rank, steps, window, compute, exposed, overlapped, copy, idle, file.
  CHECK(steps.find("0      1  300 µs   140 µs  60.0 µs") != std::string::npos);
  CHECK(steps.find("nothing_to_overlap 60.0 µs") != std::string::npos);
  CHECK(steps.find("ncclAllReduce  0xabc  4.00 MiB") != std::string::npos);
  std::istringstream lines(steps);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 100 + 8);  // bytes; "µ" takes two
  }
}

TEST_CASE("records in no step and steps short of phase ranges are reported") {
  ScratchDir dir;
  Report report = WriteAndReport(dir.path());
  REQUIRE(report.steps);
  RankStepsReport& rank = report.steps->ranks.at(0);
  CHECK(rank.unlaunched_records == 0);
  CHECK(rank.steps_missing_phase_ranges == 0);
  rank.unlaunched_records = 3;
  rank.steps_missing_phase_ranges = 2;
  std::ostringstream json_out;
  WriteJsonReport(report, json_out);
  const JsonValue json = JsonValue::Parse(json_out.str());
  CHECK(json["steps"]["ranks"][0]["unlaunched_records"].number() == 3);
  CHECK(json["steps"]["ranks"][0]["steps_missing_phase_ranges"].number() == 2);
  std::ostringstream text_out;
  WriteTextReport(report, text_out);
  // The rank line wraps; compare with its breaks taken out.
  const std::string text = Unwrapped(text_out.str());
  CHECK(text.find("3 GPU records without their launch record, in no step") != std::string::npos);
  CHECK(text.find("phases of 2 steps may be short (phase ranges dropped for room)") !=
        std::string::npos);
}

namespace {

// Two steps at k*1000 µs, range "ProfilerStep#k" [o, o+400]: a gemm s7 launch
// 10 [100,150]; a graph launch at 20 on s7 of three back-to-back nodes [260,
// 300), [300,340), [340,380). Window 400: compute 50 + 120 = 170, idle 230:
// host-bound [0,100) and [380,400) (nothing launched ends them), waiting
// [150,260) (the graph was launched at 20, before the gap began).
Report GraphStepsReport(const std::string& directory, bool whole) {
  StepTrace trace("node1", 100, 0, 0xABC);
  for (int64_t k = 0; k < 2; ++k) {
    const int64_t o = k * 1000;
    trace.Range("ProfilerStep#" + std::to_string(k), o, o + 400);
    trace.Kernel(kGemmKernel, 7, o + 10, o + 100, o + 150);
    trace.GraphLaunch(5, 7, o + 20, {{o + 260, o + 300}, {o + 300, o + 340}, {o + 340, o + 380}},
                      whole);
  }
  trace.WriteTo(directory + "/rank0.vtrace");
  return StepReportOf(directory, 1);
}

std::string GraphStepsJson(const std::string& directory, bool whole) {
  std::ostringstream out;
  WriteJsonReport(GraphStepsReport(directory, whole), out);
  return out.str();
}

}  // namespace

TEST_CASE("a CUDA-graph replay recorded whole gives the step times its nodes give") {
  ScratchDir nodes_dir, whole_dir;
  const JsonValue nodes = JsonValue::Parse(GraphStepsJson(nodes_dir.path(), false));
  const JsonValue whole = JsonValue::Parse(GraphStepsJson(whole_dir.path(), true));
  for (const JsonValue* json : {&nodes, &whole}) {
    const JsonValue& total = (*json)["steps"]["ranks"][0]["total"];
    CHECK(total["window_ns"].number() == 400'000);
    CHECK(total["compute_ns"].number() == 170'000);
    CHECK(total["idle_host_bound_ns"].number() == 120'000);
    CHECK(total["idle_waiting_ns"].number() == 110'000);
    // One launch for the gemm, one for the graph, however it was recorded.
    CHECK((*json)["steps"]["ranks"][0]["steps"][0]["launches"].number() == 2);
  }
  // The stream's kernels: the gemm and three nodes, or the gemm and one replay.
  const JsonValue& node_stream = nodes["steps"]["ranks"][0]["streams"][0];
  CHECK(node_stream["kernels"].number() == 4);
  CHECK(node_stream.object().count("graph_replays") == 0);
  const JsonValue& whole_stream = whole["steps"]["ranks"][0]["streams"][0];
  CHECK(whole_stream["kernels"].number() == 1);
  CHECK(whole_stream["graph_replays"].number() == 1);
  CHECK(whole_stream["role"].string() == "compute");
  CHECK(whole_stream["busy_ns"].number() == node_stream["busy_ns"].number());
  // The GPU section counts the replay apart from the kernels.
  const JsonValue& gpu = whole["processes"][0]["gpu"];
  CHECK(gpu["kernels"]["count"].number() == 2);
  CHECK(gpu["graph_replays"]["count"].number() == 2);
  CHECK(gpu["graph_replays"]["total_ns"].number() == 2 * 120'000);
  CHECK(nodes["processes"][0]["gpu"].object().count("graph_replays") == 0);
  CHECK(nodes["processes"][0]["gpu"]["kernels"]["count"].number() == 8);
}

TEST_CASE("the text report counts replays recorded whole apart and says what they lack") {
  ScratchDir dir;
  std::ostringstream out;
  WriteTextReport(GraphStepsReport(dir.path(), true), out);
  const std::string text = Unwrapped(out.str());
  INFO(text);
  // Spaces collapsed: the line wraps inside the phrase.
  std::string collapsed;
  for (const char c : text) {
    if (c != ' ' || collapsed.empty() || collapsed.back() != ' ') collapsed += c;
  }
  CHECK(collapsed.find("kernels 2, 100 µs; CUDA-graph replays recorded whole 2, 240 µs, their "
                       "graphs' node lists not recorded (their") != std::string::npos);
  CHECK(text.find("7 compute (1 kernels, 1 graph replays recorded whole, ") != std::string::npos);
  // The longest gap, [150,260) of a step, ends where the replay starts.
  CHECK(text.find("longest idle gap: 110 µs before CUDA-graph replay") != std::string::npos);
}

TEST_CASE("steps inferred from optimizer kernels say how many replays they could not see into") {
  // Three steps ended by an Adam kernel at o+100, then graph replays recorded whole at o+300:
  // what the light default records of a step captured into a graph with its optimizer.
  ScratchDir dir;
  StepTrace trace("node1", 100, 0, 0xABC);
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t o = k * 1000;
    trace.Kernel(kGemmKernel, 7, o + 10, o + 20, o + 90);
    trace.Kernel(kAdamKernel, 7, o + 30, o + 90, o + 100);
    trace.GraphLaunch(2, 7, o + 200, {{o + 300, o + 400}}, true);
  }
  trace.WriteTo(dir.path() + "/rank0.vtrace");
  const Report report = StepReportOf(dir.path(), 1);
  REQUIRE(report.steps);
  CHECK(report.steps->source == StepSource::kOptimizerKernels);
  CHECK(report.steps->graph_replays_recorded_whole == 3);
  std::ostringstream json_out, text_out;
  WriteJsonReport(report, json_out);
  CHECK(JsonValue::Parse(json_out.str())["steps"]["graph_replays_recorded_whole"].number() == 3);
  WriteTextReport(report, text_out);
  CHECK(Unwrapped(text_out.str()).find("caveat: 3 CUDA-graph replays were recorded whole") !=
        std::string::npos);

  // NVTX steps see replays as any other work: no caveat.
  ScratchDir nvtx_dir;
  const JsonValue nvtx = JsonValue::Parse(GraphStepsJson(nvtx_dir.path(), true));
  CHECK(nvtx["steps"].object().count("graph_replays_recorded_whole") == 0);
}

TEST_CASE("a process whose only GPU work is graph replays recorded whole has steps") {
  ScratchDir dir;
  StepTrace trace("node1", 100, 0, 0xABC);
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t o = k * 1000;
    trace.Range("ProfilerStep#" + std::to_string(k), o, o + 500);
    trace.GraphLaunch(1, 7, o + 10, {{o + 100, o + 400}}, true);
  }
  trace.WriteTo(dir.path() + "/rank0.vtrace");
  const Report report = StepReportOf(dir.path(), 1);
  REQUIRE(report.steps);
  REQUIRE(report.steps->ranks.size() == 1);
  // Its header's rank holds: GPU work, though no kernel record.
  CHECK(report.steps->ranks[0].rank == 0);
  // Steps 1 and 2 measured: 300 µs of compute in each 500 µs window.
  CHECK(report.steps->ranks[0].total.compute_ns == 2 * 300'000);
  CHECK(report.steps->ranks[0].total.window_ns == 2 * 500'000);
}
