// Phases inferred where NVTX is absent: the inference table, the kernel busy
// time (a union of intervals, kept bounded), the weight-sync communicators,
// and the rows of a vLLM-like rollout process and a Megatron-like training
// process read from real trace files, with their text and JSON.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mini_json.h"
#include "records_of.h"
#include "report_of.h"
#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"
#include "reporter/ingest/inferred_phase_reader.h"
#include "reporter/node_summary/summary_phase_codec.h"
#include "reporter/phases/inferred_phase.h"
#include "reporter/render/json/json_page.h"
#include "reporter/report/assemble_inferred_phases.h"
#include "reporter/report/assemble_phases.h"
#include "reporter/report/build.h"
#include "reporter/steps/step_patterns.h"
#include "reporter/steps/step_tracker.h"
#include "reporter/trace/trace_reader.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

std::string Described(ProcessRole role, std::string_view work_class, CommunicatorUse use) {
  const InferredPhase phase = InferredPhaseOf(role, work_class, use);
  return std::string(phase.phase) + " / " + std::string(phase.rule);
}

}  // namespace

TEST_CASE("inferred phase: the table, first matching row decides") {
  using enum CommunicatorUse;
  // Weight sync in every role: IPC handle calls and weight-sync broadcasts.
  CHECK(Described(ProcessRole::kTrain, kIpcApiClass, kUnknown) == "weight sync / ipc_calls");
  CHECK(Described(ProcessRole::kRollout, kIpcApiClass, kUnknown) == "weight sync / ipc_calls");
  CHECK(Described(ProcessRole::kTrain, kNcclKernelClass, kWeightSync) ==
        "weight sync / weight_sync_communicator");
  CHECK(Described(ProcessRole::kRollout, kNcclKernelClass, kWeightSync) ==
        "weight sync / weight_sync_communicator");
  // A rollout engine's other work, NCCL and optimizer-looking kernels included.
  CHECK(Described(ProcessRole::kRollout, "gemm", kUnknown) ==
        "rollout execution / rollout_process");
  CHECK(Described(ProcessRole::kRollout, kNcclKernelClass, kGeneral) ==
        "rollout execution / rollout_process");
  CHECK(Described(ProcessRole::kRollout, kCustomAllReduceKernelClass, kUnknown) ==
        "rollout execution / rollout_process");
  // Training.
  CHECK(Described(ProcessRole::kTrain, kOptimizerKernelClass, kUnknown) ==
        "optimizer / optimizer_kernels");
  CHECK(Described(ProcessRole::kTrain, kNcclKernelClass, kGeneral) ==
        "communication / nccl_kernels");
  CHECK(Described(ProcessRole::kTrain, kNcclKernelClass, kUnknown) ==
        "communication / nccl_kernels");
  CHECK(Described(ProcessRole::kTrain, kCustomAllReduceKernelClass, kUnknown) ==
        "communication / custom_allreduce_kernels");
  CHECK(Described(ProcessRole::kTrain, "attention", kUnknown) == "train compute / train_process");
  // Compute from two threads: the main one is forward, others backward; the
  // thread does not move optimizer or NCCL kernels, nor a rollout engine's.
  const auto on = [](ProcessRole role, std::string_view work_class, LaunchThread thread) {
    const InferredPhase phase =
        InferredPhaseOf(role, work_class, CommunicatorUse::kUnknown, thread);
    return std::string(phase.phase) + " / " + std::string(phase.rule);
  };
  CHECK(on(ProcessRole::kTrain, "gemm", LaunchThread::kMain) == "forward / main_thread");
  CHECK(on(ProcessRole::kTrain, "gemm", LaunchThread::kOther) == "backward / autograd_thread");
  CHECK(on(ProcessRole::kTrain, "gemm", LaunchThread::kMainForwardOnly) ==
        "logprob / forward_only_pass");
  CHECK(on(ProcessRole::kTrain, kOptimizerKernelClass, LaunchThread::kMainForwardOnly) ==
        "optimizer / optimizer_kernels");
  CHECK(on(ProcessRole::kTrain, kOptimizerKernelClass, LaunchThread::kOther) ==
        "optimizer / optimizer_kernels");
  CHECK(on(ProcessRole::kTrain, kNcclKernelClass, LaunchThread::kOther) ==
        "communication / nccl_kernels");
  CHECK(on(ProcessRole::kRollout, "gemm", LaunchThread::kOther) ==
        "rollout execution / rollout_process");
  CHECK(on(ProcessRole::kUnknown, "gemm", LaunchThread::kOther) == "compute / unknown_role");
  CHECK(Described(ProcessRole::kTrain, kOtherKernelClass, kUnknown) ==
        "train compute / train_process");
  // A process of unknown role: what the kernel class alone says.
  CHECK(Described(ProcessRole::kUnknown, kOptimizerKernelClass, kUnknown) ==
        "optimizer / optimizer_kernels");
  CHECK(Described(ProcessRole::kUnknown, kNcclKernelClass, kGeneral) ==
        "communication / nccl_kernels");
  CHECK(Described(ProcessRole::kUnknown, "gemm", kUnknown) == "compute / unknown_role");
}

namespace {

vprof::trace::GpuBatch KernelsAt(const std::vector<std::pair<uint64_t, uint64_t>>& start_end) {
  vprof::trace::GpuBatch batch;
  for (const auto& [start, end] : start_end) {
    vprof::trace::GpuKernel& kernel = *batch.add_kernel();
    kernel.set_start_ns(start);
    kernel.set_duration_ns(end - start);
  }
  return batch;
}

}  // namespace

TEST_CASE("inferred phase reader: role from argv, kernel span and busy union") {
  InferredPhaseReader reader;
  vprof::trace::RunHeader header;
  header.add_argv("python");
  header.add_argv("-m");
  header.add_argv("vllm.entrypoints.openai.api_server");
  reader.AddHeader(header);
  // Out of order across batches, overlapping, one inside another, one
  // bridging two intervals, and one of zero length.
  reader.AddGpuBatch(RecordsOf(KernelsAt({{500, 700}, {100, 300}})));
  reader.AddGpuBatch(RecordsOf(KernelsAt({{150, 250}, {900, 1000}, {650, 950}, {1200, 1200}})));
  const InferredPhaseInput input = reader.Result({});
  CHECK(input.role.role == ProcessRole::kRollout);
  CHECK(input.role.rule == "argv[2] contains 'vllm'");
  CHECK(input.first_kernel_start_ns == 100);
  CHECK(input.last_kernel_end_ns == 1200);
  CHECK(input.kernel_span_ns() == 1100);
  // [100, 300] and [500, 1000]: 200 + 500.
  CHECK(input.kernel_busy_ns == 700);
}

TEST_CASE("inferred phase reader: a replay recorded whole is busy time; an untimed one none") {
  InferredPhaseReader reader;
  vprof::trace::GpuBatch batch = KernelsAt({{100, 300}});
  vprof::trace::GpuGraphReplay& replay = *batch.add_graph_replay();
  replay.set_start_ns(250);
  replay.set_duration_ns(350);                   // [250, 600]: merges with the kernel
  batch.add_graph_replay()->set_duration_ns(0);  // untimed: no start
  reader.AddGpuBatch(RecordsOf(batch));
  const InferredPhaseInput input = reader.Result({});
  CHECK(input.first_kernel_start_ns == 100);
  CHECK(input.last_kernel_end_ns == 600);
  CHECK(input.kernel_busy_ns == 500);
}

TEST_CASE("inferred phase reader: kernels far out of order merge into the exact union") {
  // 300 kernels in a shuffled order (a fixed seed): most land far behind the
  // newest interval, where the reader searches rather than stepping back.
  std::vector<std::pair<uint64_t, uint64_t>> kernels;
  for (uint64_t i = 0; i < 300; ++i) {
    const uint64_t start = i * 100 + (i % 7) * 13;
    kernels.emplace_back(start, start + 40 + (i % 5) * 30);  // some reach the next one
  }
  std::mt19937 shuffle(7);
  std::shuffle(kernels.begin(), kernels.end(), shuffle);
  InferredPhaseReader reader;
  for (const auto& kernel : kernels) reader.AddGpuBatch(RecordsOf(KernelsAt({kernel})));

  // The union computed apart: sorted by start, merged in one pass.
  std::sort(kernels.begin(), kernels.end());
  int64_t busy = 0;
  uint64_t covered_until = 0;
  for (const auto& [start, end] : kernels) {
    const uint64_t from = std::max(start, covered_until);
    if (end > from) busy += static_cast<int64_t>(end - from);
    covered_until = std::max(covered_until, end);
  }
  CHECK(reader.Result({}).kernel_busy_ns == busy);
}

namespace {

struct Launch {
  uint32_t correlation;
  uint32_t tid;
};
struct LaunchedKernel {
  uint64_t name_iid;
  uint32_t correlation;
  uint64_t duration_ns;
};

// API calls (cudaLaunchKernel, iid 1) and kernels, as one GpuBatch.
vprof::trace::GpuBatch LaunchesOf(const std::vector<Launch>& calls,
                                  const std::vector<LaunchedKernel>& kernels) {
  vprof::trace::GpuBatch batch;
  for (const Launch& call : calls) {
    vprof::trace::ApiCall& api = *batch.add_api();
    api.set_name_iid(1);
    api.set_correlation_id(call.correlation);
    api.set_tid(call.tid);
    api.set_start_ns(500 * call.correlation);
  }
  for (const LaunchedKernel& launched : kernels) {
    vprof::trace::GpuKernel& kernel = *batch.add_kernel();
    kernel.set_name_iid(launched.name_iid);
    kernel.set_correlation_id(launched.correlation);
    kernel.set_start_ns(1000 * launched.correlation);
    kernel.set_duration_ns(launched.duration_ns);
  }
  return batch;
}

}  // namespace

TEST_CASE("step tracker: kernels launched off the main thread, by name") {
  const std::map<uint64_t, std::string> names = {
      {1, "cudaLaunchKernel"}, {2, "gemm_a"}, {3, "gemm_b"}};
  StepTracker tracker([&](uint64_t iid) { return names.at(iid); }, DefaultStepMatcher());
  // Thread 7 launches the first kernel: it is the main thread. Thread 9's
  // kernels are counted whether their call comes before them (2, 3) or after
  // (4); a kernel whose call never comes (6) is in no count.
  tracker.AddGpuBatch(RecordsOf(LaunchesOf({{1, 7}, {2, 9}, {3, 9}}, {{2, 1, 100}})));
  tracker.AddGpuBatch(
      RecordsOf(LaunchesOf({{5, 7}}, {{2, 2, 30}, {3, 3, 40}, {3, 4, 50}, {3, 5, 60}})));
  tracker.AddGpuBatch(RecordsOf(LaunchesOf({{4, 9}}, {{3, 6, 70}})));
  const std::map<std::string, ActivityTotals> off_main = tracker.OffMainThreadKernels();
  REQUIRE(off_main.size() == 2);
  CHECK(off_main.at("gemm_a").count == 1);
  CHECK(off_main.at("gemm_a").total_ns == 30);
  CHECK(off_main.at("gemm_b").count == 2);
  CHECK(off_main.at("gemm_b").total_ns == 90);
}

namespace {

// One step of a trainer: each pass's kernels by name iid (2: gemm, 3: gelu,
// 4: softmax), main-thread passes on thread 7 and backward ones on thread 9,
// launched in turn; the step's NVTX range (iid 5, "ProfilerStep#1") holds
// them all. Kernel n (from 1) runs n*10 ns. Returns the forward-only kernels.
std::map<std::string, ActivityTotals> ForwardOnlyOf(
    const std::vector<std::pair<uint32_t, std::vector<uint64_t>>>& passes) {
  const std::map<uint64_t, std::string> names = {
      {1, "cudaLaunchKernel"}, {2, "gemm"}, {3, "gelu"}, {4, "softmax"}, {5, "ProfilerStep#1"}};
  StepTracker tracker([&](uint64_t iid) { return names.at(iid); }, DefaultStepMatcher());
  std::vector<Launch> calls;
  std::vector<LaunchedKernel> kernels;
  for (const auto& [tid, pass] : passes) {
    for (const uint64_t name_iid : pass) {
      const auto correlation = static_cast<uint32_t>(calls.size() + 1);
      calls.push_back({correlation, tid});
      kernels.push_back({name_iid, correlation, 10 * uint64_t{correlation}});
    }
  }
  tracker.AddGpuBatch(RecordsOf(LaunchesOf(calls, kernels)));
  vprof::trace::NvtxBatch nvtx;
  vprof::trace::NvtxRange& step = *nvtx.add_range();
  step.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
  step.set_name_iid(5);
  step.set_start_ns(1);
  step.set_end_ns(500 * (calls.size() + 1));
  tracker.AddNvtxBatch(nvtx);
  tracker.Finish();
  return tracker.ForwardOnlyKernels();
}

}  // namespace

TEST_CASE("step tracker: forward-only passes are the main thread's before the first forward") {
  constexpr uint32_t kMain = 7, kAutograd = 9;
  const std::vector<uint64_t> forward = {2, 3, 2};
  const std::vector<uint64_t> backward = {2, 2};
  // Two logprob passes (gemm, softmax), then two microbatches' forward and
  // backward: the main thread's first run is 2 + 2 + 3 kernels, of which the
  // last 3 match the second forward.
  std::vector<uint64_t> first_run = {2, 4, 2, 4};
  first_run.insert(first_run.end(), forward.begin(), forward.end());
  const auto logprob = ForwardOnlyOf(
      {{kMain, first_run}, {kAutograd, backward}, {kMain, forward}, {kAutograd, backward}});
  REQUIRE(logprob.size() == 2);
  // Kernels 1 to 4: gemm (10 + 30 ns) and softmax (20 + 40 ns).
  CHECK(logprob.at("gemm").count == 2);
  CHECK(logprob.at("gemm").total_ns == 40);
  CHECK(logprob.at("softmax").count == 2);
  CHECK(logprob.at("softmax").total_ns == 60);

  // No pass before the first forward.
  CHECK(ForwardOnlyOf(
            {{kMain, forward}, {kAutograd, backward}, {kMain, forward}, {kAutograd, backward}})
            .empty());
  // One backward run: the first forward's length is not known.
  CHECK(ForwardOnlyOf({{kMain, first_run}, {kAutograd, backward}}).empty());
  // The first run's end is not the next forward's sequence: no guess.
  CHECK(ForwardOnlyOf(
            {{kMain, first_run}, {kAutograd, backward}, {kMain, {2, 2, 3}}, {kAutograd, backward}})
            .empty());
}

TEST_CASE("inferred phases: a trainer's compute splits into forward and backward by thread") {
  ProcessRecord record;
  record.gpu.kernels_by_name["sm90_xmma_gemm_bf16"] = {10, 0, 1000};
  record.gpu.kernels_by_name["multi_tensor_apply_kernel<AdamFunctor>"] = {2, 0, 50};
  InferredPhaseInput input;
  input.role = {ProcessRole::kTrain, "argv"};
  // 6 of the 10 GEMMs (700 ns) and one Adam kernel came from another thread.
  input.off_main_thread_kernels["sm90_xmma_gemm_bf16"] = {6, 0, 700};
  input.off_main_thread_kernels["multi_tensor_apply_kernel<AdamFunctor>"] = {1, 0, 20};
  std::vector<PhaseReport> rows = InferredPhaseRows(record, input, {});
  const auto row = [&](std::string_view name) -> const PhaseReport& {
    const auto found = std::find_if(rows.begin(), rows.end(),
                                    [&](const PhaseReport& r) { return r.name == name; });
    REQUIRE(found != rows.end());
    return *found;
  };
  CHECK(row("backward").source == "inferred:autograd_thread");
  CHECK(row("backward").count == 6);
  CHECK(row("backward").total_ns == 700);
  CHECK(row("forward").source == "inferred:main_thread");
  CHECK(row("forward").count == 4);
  CHECK(row("forward").total_ns == 300);
  CHECK(row("optimizer").count == 2);
  CHECK(row("optimizer").total_ns == 50);

  // Of the main thread's 4 GEMMs (300 ns), 3 (200 ns) were forward-only passes.
  input.forward_only_kernels["sm90_xmma_gemm_bf16"] = {3, 0, 200};
  rows = InferredPhaseRows(record, input, {});
  CHECK(row("logprob").source == "inferred:forward_only_pass");
  CHECK(row("logprob").count == 3);
  CHECK(row("logprob").total_ns == 200);
  CHECK(row("forward").count == 1);
  CHECK(row("forward").total_ns == 100);
  CHECK(row("backward").total_ns == 700);
  input.forward_only_kernels.clear();

  // All compute from one thread (only optimizer kernels from another): one
  // "train compute" row, no guess.
  input.off_main_thread_kernels.erase("sm90_xmma_gemm_bf16");
  const auto one = InferredPhaseRows(record, input, {});
  CHECK(std::none_of(one.begin(), one.end(), [](const PhaseReport& r) {
    return r.name == "forward" || r.name == "backward";
  }));
  CHECK(std::any_of(one.begin(), one.end(), [](const PhaseReport& r) {
    return r.name == "train compute" && r.total_ns == 1000;
  }));
}

TEST_CASE("inferred phase reader: a torchrun worker's role from its RunHeader environment") {
  InferredPhaseReader reader;
  vprof::trace::RunHeader header;
  header.add_argv("python3");
  header.add_argv("ddp_step.py");
  for (const char* name : {"LOCAL_RANK", "TORCHELASTIC_RUN_ID"}) {
    vprof::trace::EnvVar& variable = *header.add_env();
    variable.set_name(name);
    variable.set_value("1");
  }
  reader.AddHeader(header);
  const InferredPhaseInput input = reader.Result({});
  CHECK(input.role.role == ProcessRole::kTrain);
  CHECK(input.role.rule == "environment has TORCHELASTIC_RUN_ID (a torchrun worker)");
}

TEST_CASE("inferred phase reader: a Ray worker's role from its latest title, then its kernels") {
  InferredPhaseReader reader;
  vprof::trace::RunHeader header;
  for (const char* argument : {"/usr/bin/python3", "ray/_private/workers/default_worker.py",
                               "--node-ip-address=10.0.0.7"}) {
    header.add_argv(argument);
  }
  header.set_start_ns(1'000'000'000);
  reader.AddHeader(header);
  const std::map<std::string, ActivityTotals> no_kernels;
  CHECK(reader.Result(no_kernels).role.role == ProcessRole::kUnknown);
  // Ray names the worker after its actor; the latest reading holds.
  const auto title = [&](std::string_view argv0, uint64_t observed_ns, bool at_end) {
    vprof::trace::ProcessTitle packet;
    packet.add_argv(std::string(argv0));
    packet.set_observed_ns(observed_ns);
    packet.set_at_end(at_end);
    reader.AddProcessTitle(packet);
  };
  title("ray::IDLE", 2'000'000'000, false);
  title("ray::MegatronTrainRayActor.train", 4'500'000'000, false);
  InferredPhaseInput input = reader.Result(no_kernels);
  CHECK(input.role.role == ProcessRole::kTrain);
  CHECK(input.role.rule == "title at 3.5 s: argv[0] contains 'megatron'");
  title("ray::MegatronTrainRayActor", 9'000'000'000, true);
  CHECK(reader.Result(no_kernels).role.rule == "title at end: argv[0] contains 'megatron'");
  // A title that names no role leaves it to the kernels.
  title("ray::IDLE", 9'500'000'000, true);
  std::map<std::string, ActivityTotals> kernels;
  kernels["multi_tensor_apply_kernel<AdamFunctor<float>>"].Add(0, 100);
  input = reader.Result(kernels);
  CHECK(input.role.role == ProcessRole::kTrain);
  CHECK(input.role.rule ==
        "kernel 'multi_tensor_apply_kernel<AdamFunctor<float>>' is of class "
        "optimizer");
}

TEST_CASE("inferred phase reader: memory stays bounded on long traces, the sum exact") {
  InferredPhaseReader reader;
  // 100000 disjoint 10 ns kernels, 20 ns apart, in order: more than the
  // intervals kept open, so most are closed as they age.
  constexpr uint64_t kKernels = 100000;
  for (uint64_t i = 0; i < kKernels; ++i) {
    reader.AddGpuBatch(RecordsOf(KernelsAt({{i * 20, i * 20 + 10}})));
  }
  // A late kernel reaching back before the closed intervals counts only after them.
  reader.AddGpuBatch(RecordsOf(KernelsAt({{0, 30}})));
  const InferredPhaseInput input = reader.Result({});
  CHECK(input.kernel_busy_ns == static_cast<int64_t>(kKernels * 10));
  CHECK(input.kernel_span_ns() == static_cast<int64_t>((kKernels - 1) * 20 + 10));
  CHECK(input.role.role == ProcessRole::kUnknown);
}

namespace {

constexpr uint64_t kWeightSyncComm = 0x51;     // spans the trainer and the rollout engine
constexpr uint64_t kBroadcastOnlyComm = 0x52;  // the trainer's alone, broadcasts only
constexpr uint64_t kDataParallelComm = 0x53;   // the trainer's all-reduces

constexpr std::string_view kBroadcastKernel = "ncclDevKernel_Broadcast_RING_LL";
constexpr std::string_view kAllReduceKernel = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";

// A trace whose RunHeader carries `argv`: the builder's packets after its own header.
void WriteWithArgv(const TraceFileBuilder& trace, uint32_t pid, std::vector<std::string> argv,
                   const std::string& path) {
  vprof::trace::TracePacket packet;
  vprof::trace::RunHeader& header = *packet.mutable_run_header();
  header.set_format_version(vprof::schema::kFormatVersion);
  header.set_host("node1");
  header.set_pid(pid);
  header.set_clock(vprof::trace::CLOCK_DOMAIN_MONOTONIC);
  for (std::string& argument : argv) header.add_argv(std::move(argument));
  std::ofstream(path, std::ios::binary) << FramePacket(packet.SerializeAsString())
                                        << trace.bytes().substr(trace.packet_offsets().at(1));
}

class GpuPacket {
 public:
  explicit GpuPacket(TraceFileBuilder& trace) : trace_(trace) {}
  GpuPacket& Kernel(std::string_view name, uint64_t start_ns, uint64_t duration_ns,
                    uint32_t correlation_id = 0) {
    vprof::trace::GpuKernel& kernel = *batch_.add_kernel();
    kernel.set_name_iid(trace_.Intern(name));
    kernel.set_start_ns(start_ns);
    kernel.set_duration_ns(duration_ns);
    kernel.set_correlation_id(correlation_id);
    return *this;
  }
  GpuPacket& Api(std::string_view name, uint64_t duration_ns) {
    vprof::trace::ApiCall& api = *batch_.add_api();
    api.set_name_iid(trace_.Intern(name));
    api.set_duration_ns(duration_ns);
    return *this;
  }
  // The kernels under `correlation_id` were launched by the NCCL call `call_id`.
  GpuPacket& External(uint64_t call_id, uint32_t correlation_id) {
    vprof::trace::ExternalCorrelation& external = *batch_.add_external();
    external.set_external_id(call_id);
    external.set_correlation_id(correlation_id);
    return *this;
  }
  void Write() {
    vprof::trace::TracePacket packet;
    *packet.mutable_gpu_batch() = batch_;
    trace_.AddPacket(std::move(packet));
  }

 private:
  TraceFileBuilder& trace_;
  vprof::trace::GpuBatch batch_;
};

// A call to `function` on `comm` (rank `comm_rank` of 2), whose kernels carry `call_id`.
vprof::trace::NcclEvent Call(TraceFileBuilder& trace, std::string_view function, uint64_t comm,
                             uint32_t comm_rank, uint64_t call_id) {
  vprof::trace::NcclEvent event = trace.Event(function, comm, 2, comm_rank, 1, 1 << 20, 0, 10);
  event.set_call_id(call_id);
  return event;
}

// The vLLM engine (pid 201), kernels in ns:
//   attention  1000-1300 ┐ union 1000-1600
//   gemm       1200-1600 ┘
//   triton     2000-2100
//   broadcast  3000-3500 on kWeightSyncComm (linked to its ncclBroadcast)
//   cudaIpcOpenMemHandle, 40 ns of API time
void WriteRolloutEngine(const std::string& directory) {
  TraceFileBuilder trace("node1", 201);
  trace.AddCommunicator(kWeightSyncComm, 2, 1, "ncclCommInitRank");
  trace.AddBatch({Call(trace, "ncclBroadcast", kWeightSyncComm, 1, 1)});
  GpuPacket(trace)
      .External(1, 11)
      .Kernel("flash_fwd_kernel", 1000, 300)
      .Kernel("ampere_bf16_s16816gemm_bf16_128x64", 1200, 400)
      .Kernel("triton_poi_fused_add_0", 2000, 100)
      .Kernel(kBroadcastKernel, 3000, 500, 11)
      .Api("cudaIpcOpenMemHandle", 40)
      .Write();
  trace.AddFooter();
  WriteWithArgv(trace, 201, {"python3", "-m", "vllm.entrypoints.openai.api_server"},
                directory + "/node1.201.vtrace");
}

// The Megatron trainer (pid 101, rank 0), kernels in ns:
//   gemm       1000-2000 ┐ union 1000-2300
//   all-reduce 1500-2300 ┘ on kDataParallelComm
//   optimizer  2500-2700
//   broadcast  3000-3500 on kWeightSyncComm
//   broadcast  3500-3600 on kBroadcastOnlyComm
//   send/recv  3800-3900 linked to no call
//   cudaIpcGetMemHandle twice, 30 ns each
void WriteTrainer(const std::string& directory) {
  TraceFileBuilder trace("node1", 101, 0);
  trace.AddCommunicator(kWeightSyncComm, 2, 0, "ncclCommInitRank");
  trace.AddCommunicator(kBroadcastOnlyComm, 2, 0, "ncclCommInitRank");
  trace.AddCommunicator(kDataParallelComm, 2, 0, "ncclCommInitRank");
  trace.AddBatch({Call(trace, "ncclAllReduce", kDataParallelComm, 0, 1),
                  Call(trace, "ncclBroadcast", kWeightSyncComm, 0, 2),
                  Call(trace, "ncclBroadcast", kBroadcastOnlyComm, 0, 3)});
  GpuPacket(trace)
      .External(1, 21)
      .External(2, 22)
      .External(3, 23)
      .Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 1000, 1000)
      .Kernel(kAllReduceKernel, 1500, 800, 21)
      .Kernel("multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", 2500, 200)
      .Kernel(kBroadcastKernel, 3000, 500, 22)
      .Kernel(kBroadcastKernel, 3500, 100, 23)
      .Kernel("ncclDevKernel_SendRecv", 3800, 100)
      .Api("cudaIpcGetMemHandle", 30)
      .Api("cudaIpcGetMemHandle", 30)
      .Write();
  trace.AddFooter();
  WriteWithArgv(trace, 101, {"python", "pretrain_gpt.py", "--rollout-backend", "vllm"},
                directory + "/node1.101.vtrace");
}

// What the trace source will gather once it feeds an InferredPhaseReader:
// the same packets, read from the same file.
// The text with runs of spaces squeezed to one.
std::string Squeezed(const std::string& text) {
  std::string result;
  for (const char c : text) {
    if (c == ' ' && !result.empty() && result.back() == ' ') continue;
    result += c;
  }
  return result;
}

const PhaseReport& Row(const ProcessPhasesReport& process, std::string_view phase,
                       std::string_view source) {
  for (const PhaseReport& row : process.phases) {
    if (row.name == phase && row.source == source) return row;
  }
  FAIL("no row " << phase << " from " << source << " in " << process.file);
  throw;
}

struct InferredRun {
  Report report;  // with the inferred phases in report.phases
  std::vector<ProcessRecord> records;
  std::vector<InferredPhaseInput> inputs;
};

InferredRun ReadInferredRun(const std::string& directory) {
  InferredRun run;
  run.report = ReportOf(directory);
  const TraceFileList traces = ListTraceFiles(directory);
  run.records = GatherTraces(traces.paths, ClockChoice::kByHosts).records;
  for (const ProcessRecord& record : run.records) {
    REQUIRE(record.inferred_phase_input);
    run.inputs.push_back(*record.inferred_phase_input);
  }
  // The report's processes are by file name, like the paths.
  REQUIRE(run.report.processes.size() == run.records.size());
  run.report.phases = PhaseReports(run.records, run.report.processes, run.inputs);
  return run;
}

// One push/pop NVTX range of `name` from start to end, in a packet of its own.
void AddPushPopRange(TraceFileBuilder& trace, std::string_view name, uint64_t start_ns,
                     uint64_t end_ns) {
  vprof::trace::TracePacket packet;
  vprof::trace::NvtxRange& range = *packet.mutable_nvtx_batch()->add_range();
  range.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
  range.set_name_iid(trace.Intern(name));
  range.set_start_ns(start_ns);
  range.set_end_ns(end_ns);
  trace.AddPacket(std::move(packet));
}

}  // namespace

TEST_CASE("inferred phases: a vLLM engine and a Megatron trainer without NVTX") {
  ScratchDir dir;
  WriteRolloutEngine(dir.path());
  WriteTrainer(dir.path());
  const InferredRun run = ReadInferredRun(dir.path());

  // kWeightSyncComm spans both roles; kBroadcastOnlyComm carries broadcasts
  // only; kDataParallelComm all-reduces.
  CHECK(WeightSyncCommunicators(run.records, run.inputs) ==
        std::set<uint64_t>{kWeightSyncComm, kBroadcastOnlyComm});

  REQUIRE(run.report.phases.size() == 2);
  // By rank: the trainer's from its header, the engine's from its communicator.
  const ProcessPhasesReport& trainer = run.report.phases[0];
  CHECK(trainer.file == "node1.101.vtrace");
  CHECK(trainer.inferred);
  CHECK(trainer.role == "train");
  CHECK(trainer.role_rule == "argv[1] contains 'pretrain_'");
  CHECK(trainer.ranges == 0);
  // First kernel start 1000 to last kernel end 3900.
  CHECK(trainer.span_ns == 2900);
  REQUIRE(trainer.phases.size() == 6);
  // train compute: the gemm, 1000 of 2900.
  CHECK(Row(trainer, "train compute", "inferred:train_process").total_ns == 1000);
  CHECK(Row(trainer, "train compute", "inferred:train_process").count == 1);
  CHECK(*Row(trainer, "train compute", "inferred:train_process").span_share ==
        Approx(1000.0 / 2900.0));
  // communication: the all-reduce (800) and the unlinked send/recv (100).
  CHECK(Row(trainer, "communication", "inferred:nccl_kernels").total_ns == 900);
  CHECK(Row(trainer, "communication", "inferred:nccl_kernels").count == 2);
  CHECK(Row(trainer, "communication", "inferred:nccl_kernels").mean_ns == 450);
  // weight sync: the broadcasts on both weight-sync communicators, 500 + 100.
  CHECK(Row(trainer, "weight sync", "inferred:weight_sync_communicator").total_ns == 600);
  CHECK(Row(trainer, "weight sync", "inferred:weight_sync_communicator").count == 2);
  CHECK(Row(trainer, "weight sync", "inferred:ipc_calls").total_ns == 60);
  CHECK(Row(trainer, "weight sync", "inferred:ipc_calls").count == 2);
  CHECK(Row(trainer, "optimizer", "inferred:optimizer_kernels").total_ns == 200);
  // Busy: 1000-2300, 2500-2700, 3000-3600, 3800-3900 = 1300 + 200 + 600 + 100
  // = 2200; idle = 2900 - 2200.
  CHECK(Row(trainer, "idle", "inferred:gpu_idle").total_ns == 700);
  CHECK(Row(trainer, "idle", "inferred:gpu_idle").count == 0);
  // Longest first.
  CHECK(trainer.phases[0].name == "train compute");
  CHECK(trainer.phases[1].name == "communication");
  CHECK(trainer.phases[2].name == "idle");

  const ProcessPhasesReport& engine = run.report.phases[1];
  CHECK(engine.file == "node1.201.vtrace");
  CHECK(engine.rank == 1);  // its place in kWeightSyncComm
  CHECK(engine.role == "rollout");
  CHECK(engine.role_rule == "argv[2] contains 'vllm'");
  // 1000 to 3500.
  CHECK(engine.span_ns == 2500);
  REQUIRE(engine.phases.size() == 4);
  // attention 300 + gemm 400 + triton 100.
  CHECK(Row(engine, "rollout execution", "inferred:rollout_process").total_ns == 800);
  CHECK(Row(engine, "rollout execution", "inferred:rollout_process").count == 3);
  CHECK(*Row(engine, "rollout execution", "inferred:rollout_process").span_share ==
        Approx(800.0 / 2500.0));
  CHECK(Row(engine, "weight sync", "inferred:weight_sync_communicator").total_ns == 500);
  CHECK(Row(engine, "weight sync", "inferred:ipc_calls").total_ns == 40);
  // Busy: 1000-1600, 2000-2100, 3000-3500 = 600 + 100 + 500 = 1200; idle 2500 - 1200.
  CHECK(Row(engine, "idle", "inferred:gpu_idle").total_ns == 1300);
  CHECK(*Row(engine, "idle", "inferred:gpu_idle").span_share == Approx(0.52));

  std::ostringstream json_text;
  WriteJsonReport(run.report, json_text);
  const JsonValue json = JsonValue::Parse(json_text.str());
  const JsonValue& phases = json["phases"];
  CHECK(phases[1]["source"].string() == "inferred");
  CHECK(phases[1]["role"].string() == "rollout");
  CHECK(phases[1]["role_rule"].string() == "argv[2] contains 'vllm'");
  CHECK(phases[1]["span_ns"].number() == 2500);
  CHECK(phases[1]["phases"][0]["phase"].string() == "idle");
  CHECK(phases[1]["phases"][0]["source"].string() == "inferred:gpu_idle");
  CHECK(phases[1]["phases"][0]["total_ns"].number() == 1300);

  const std::string text = Squeezed(TextOf(run.report));
  CHECK(text.find("Phases (NVTX)\n no NVTX ranges in any trace\n") != std::string::npos);
  const size_t inferred = text.find("\nPhases (inferred: processes without NVTX phase ranges)\n");
  REQUIRE(inferred != std::string::npos);
  // 500 + 100 ns over 2 broadcasts; 600 / 2900 = 20.7%.
  CHECK(
      text.find(" 0 weight sync 2 600 ns 300 ns 20.7% weight_sync_communicator node1.101.vtrace\n",
                inferred) != std::string::npos);
  // 800 / 3 kernels = 267 ns; 800 / 2500 = 32.0%.
  CHECK(text.find(" 1 rollout execution 3 800 ns 267 ns 32.0% rollout_process node1.201.vtrace\n",
                  inferred) != std::string::npos);
  CHECK(text.find(" 1 idle 0 1.30 µs 0 ns 52.0% gpu_idle node1.201.vtrace\n", inferred) !=
        std::string::npos);
  CHECK(text.find("rank 1 (node1.201.vtrace): role rollout (argv[2] contains 'vllm'); kernels "
                  "over 2.50 µs\n",
                  inferred) != std::string::npos);
}

TEST_CASE("inferred phases: the report of a directory reads the inputs from the traces") {
  ScratchDir dir;
  WriteTrainer(dir.path());
  const Report report = ReportOf(dir.path());
  // The trace source folds each process's argv and kernels as it reads: the trainer alone gets
  // its role and the optimizer (200 ns) and idle (700 ns of a 2,900 ns span) rows computed above.
  REQUIRE(report.phases.size() == 1);
  const ProcessPhasesReport& trainer = report.phases[0];
  CHECK(trainer.inferred);
  CHECK(trainer.role == "train");
  CHECK(trainer.span_ns == 2900);
  CHECK(Row(trainer, "optimizer", "inferred:optimizer_kernels").total_ns == 200);
  CHECK(Row(trainer, "idle", "inferred:gpu_idle").total_ns == 700);
  CHECK(TextOf(report).find("Phases (inferred") != std::string::npos);
}

TEST_CASE("inferred phases: a process with NVTX phase ranges keeps them, and gets its role") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 101, 0);
  AddPushPopRange(trace, "actor_train", 0, 5000);
  GpuPacket(trace).Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 1000, 1000).Write();
  trace.AddFooter();
  WriteWithArgv(trace, 101, {"ray::MegatronTrainRayActor.train"}, dir.File("node1.101.vtrace"));

  const InferredRun run = ReadInferredRun(dir.path());
  REQUIRE(run.report.phases.size() == 1);
  const ProcessPhasesReport& process = run.report.phases[0];
  CHECK_FALSE(process.inferred);
  CHECK(process.role == "train");
  CHECK(process.span_ns == 5000);
  REQUIRE(process.phases.size() == 1);
  CHECK(process.phases[0].name == "train");
  CHECK(process.phases[0].source == "nvtx");
  CHECK(process.phases[0].total_ns == 5000);
  CHECK(TextOf(run.report)
            .find("rank - (node1.101.vtrace): role train (argv[0] contains "
                  "'megatron'); 1 ranges over 5.00 µs") != std::string::npos);
}

TEST_CASE("inferred phases: a trace's ProcessTitle and kernels reach the role") {
  ScratchDir dir;
  // A Ray worker that Ray renamed after its actor while it ran.
  TraceFileBuilder worker("node1", 103, 0);
  GpuPacket(worker).Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 1000, 1000).Write();
  vprof::trace::TracePacket title;
  title.mutable_process_title()->add_argv("ray::MegatronTrainRayActor.train");
  title.mutable_process_title()->set_observed_ns(5000);
  title.mutable_process_title()->set_at_end(true);
  worker.AddPacket(std::move(title));
  worker.AddFooter();
  WriteWithArgv(worker, 103, {"python", "default_worker.py", "--node-ip-address=10.0.0.7"},
                dir.File("node1.103.vtrace"));
  // A training script with no telling name, told by its optimizer's kernels.
  TraceFileBuilder script("node1", 104, 1);
  GpuPacket(script)
      .Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 1000, 1000)
      .Kernel("multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", 2500, 200)
      .Write();
  script.AddFooter();
  WriteWithArgv(script, 104, {"python3", "run.py"}, dir.File("node1.104.vtrace"));

  const InferredRun run = ReadInferredRun(dir.path());
  REQUIRE(run.report.phases.size() == 2);
  CHECK(run.report.phases[0].role == "train");
  CHECK(run.report.phases[0].role_rule == "title at end: argv[0] contains 'megatron'");
  CHECK(Row(run.report.phases[0], "train compute", "inferred:train_process").total_ns == 1000);
  CHECK(run.report.phases[1].role == "train");
  CHECK(run.report.phases[1].role_rule ==
        "kernel 'multi_tensor_apply_kernel<Ten…tadata<4>, AdamFunctor<float>>' is of class "
        "optimizer");
}

TEST_CASE("inferred phases: ranges that name no phase do not stop the inference") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 102, 0);
  AddPushPopRange(trace, "measured", 0, 5000);  // no rule names a phase "measured"
  // Kernels 1000-2000 and 3000-3500: busy 1500 of a 2500 ns kernel span, idle 1000.
  GpuPacket(trace)
      .Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 1000, 1000)
      .Kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 3000, 500)
      .Write();
  trace.AddFooter();
  WriteWithArgv(trace, 102, {"python", "pretrain_gpt.py"}, dir.File("node1.102.vtrace"));

  const InferredRun run = ReadInferredRun(dir.path());
  REQUIRE(run.report.phases.size() == 1);
  const ProcessPhasesReport& process = run.report.phases[0];
  CHECK(process.inferred);
  CHECK(process.role == "train");
  CHECK(process.span_ns == 2500);
  CHECK(Row(process, "train compute", "inferred:train_process").total_ns == 1500);
  CHECK(Row(process, "idle", "inferred:gpu_idle").total_ns == 1000);
}

TEST_CASE("inferred phases: a trainer's logprob passes, from its trace file without NVTX") {
  // One step, inferred from its closing Adam kernel: two logprob passes
  // (gemm, softmax), then two micro-batches' forward (gemm, gelu, gemm) on
  // thread 7 and backward (gemm, gemm) on thread 9. Kernel n (from 1) is
  // launched at n µs, starts 1 µs later and runs n*10 ns.
  constexpr std::string_view kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32";
  constexpr std::string_view kGelu = "vectorized_elementwise_kernel<GeluCUDAKernelImpl>";
  constexpr std::string_view kSoftmax = "softmax_warp_forward";
  constexpr std::string_view kAdam =
      "multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor>";
  const std::vector<std::pair<uint32_t, std::string_view>> kernels = {
      {7, kGemm}, {7, kSoftmax}, {7, kGemm}, {7, kSoftmax},  // logprob passes
      {7, kGemm}, {7, kGelu},    {7, kGemm},                 // forward 1
      {9, kGemm}, {9, kGemm},                                // backward 1
      {7, kGemm}, {7, kGelu},    {7, kGemm},                 // forward 2
      {9, kGemm}, {9, kGemm},                                // backward 2
      {7, kAdam}};
  ScratchDir dir;
  TraceFileBuilder trace("node1", 103, 0);
  vprof::trace::TracePacket packet;
  vprof::trace::GpuBatch& batch = *packet.mutable_gpu_batch();
  for (uint32_t n = 1; n <= kernels.size(); ++n) {
    vprof::trace::ApiCall& api = *batch.add_api();
    api.set_name_iid(trace.Intern("cudaLaunchKernel"));
    api.set_correlation_id(n);
    api.set_tid(kernels[n - 1].first);
    api.set_start_ns(1000 * n);
    api.set_duration_ns(100);
    vprof::trace::GpuKernel& kernel = *batch.add_kernel();
    kernel.set_name_iid(trace.Intern(kernels[n - 1].second));
    kernel.set_correlation_id(n);
    kernel.set_start_ns(1000 * n + 1000);
    kernel.set_duration_ns(10 * n);
  }
  trace.AddPacket(std::move(packet));
  trace.AddFooter();
  WriteWithArgv(trace, 103, {"python", "pretrain_gpt.py"}, dir.File("node1.103.vtrace"));

  const InferredRun run = ReadInferredRun(dir.path());
  REQUIRE(run.report.phases.size() == 1);
  const ProcessPhasesReport& process = run.report.phases[0];
  CHECK(Row(process, "logprob", "inferred:forward_only_pass").count == 4);
  CHECK(Row(process, "logprob", "inferred:forward_only_pass").total_ns == 10 + 20 + 30 + 40);
  CHECK(Row(process, "forward", "inferred:main_thread").count == 6);
  CHECK(Row(process, "forward", "inferred:main_thread").total_ns == 50 + 60 + 70 + 100 + 110 + 120);
  CHECK(Row(process, "backward", "inferred:autograd_thread").count == 4);
  CHECK(Row(process, "backward", "inferred:autograd_thread").total_ns == 80 + 90 + 130 + 140);
  CHECK(Row(process, "optimizer", "inferred:optimizer_kernels").total_ns == 150);
}

TEST_CASE("inferred phases: a node summary keeps the kernels launched off the main thread") {
  InferredPhaseInput input;
  input.role = {ProcessRole::kTrain, "argv[1] contains 'pretrain_'"};
  input.first_kernel_start_ns = 10;
  input.last_kernel_end_ns = 900;
  input.kernel_busy_ns = 500;
  input.off_main_thread_kernels["gemm_a"] = {3, 0, 120};
  input.off_main_thread_kernels["gemm_b"] = {1, 0, 7};
  input.forward_only_kernels["gemm_a"] = {2, 0, 50};
  vprof::summary::Process process;
  *process.mutable_inferred_phase_input() = EncodeInferredPhaseInput(input);
  const std::optional<InferredPhaseInput> decoded = DecodeInferredPhaseInput(process);
  REQUIRE(decoded);
  CHECK(decoded->role.role == ProcessRole::kTrain);
  CHECK(decoded->kernel_busy_ns == 500);
  REQUIRE(decoded->off_main_thread_kernels.size() == 2);
  CHECK(decoded->off_main_thread_kernels.at("gemm_a").count == 3);
  CHECK(decoded->off_main_thread_kernels.at("gemm_a").total_ns == 120);
  CHECK(decoded->off_main_thread_kernels.at("gemm_b").total_ns == 7);
  REQUIRE(decoded->forward_only_kernels.size() == 1);
  CHECK(decoded->forward_only_kernels.at("gemm_a").count == 2);
  CHECK(decoded->forward_only_kernels.at("gemm_a").total_ns == 50);
}
