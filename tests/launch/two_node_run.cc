#include "two_node_run.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <vector>

#include "gpu_batch_builder.h"
#include "plugin_trace_builder.h"
#include "trace_file_builder.h"

namespace vprof::reporter::testing {
namespace {

constexpr uint64_t kWorld = 0x1000;
constexpr uint64_t kHostComm[] = {0x2001, 0x2002};
constexpr int kSteps = 6;
constexpr int kCutRank = 3;
constexpr int kCutAfterStep = 3;  // rank 3's trace ends inside step 4's batch
// realtime − monotonic on each host; the samples scatter around it.
constexpr int64_t kHostOffset[] = {5'000'000'000, 2'000'000'000};
constexpr uint64_t kStart = 10'000'000'000;  // realtime of the first step
constexpr uint64_t kStep = 1'000'000;
// NCCL's profiler plugin: one context per communicator NCCL initialised,
// named by a commHash every member shares.
constexpr uint64_t kWorldContext = 1;
constexpr uint64_t kHostContext = 2;
constexpr uint64_t kUndescribedContext = 9;  // its NcclPluginComm was lost
constexpr uint64_t kWorldHash = 0xA110;
constexpr uint64_t kHostHash[] = {0xB001, 0xB002};
constexpr uint32_t kPluginVersion = 6;
constexpr char kPreload[] = "/opt/vprof/lib/libvprof.so";
constexpr char kRingKernel[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
constexpr uint32_t kCapturedGraph = 7;  // CUDA's graph id of rank 0's captured step
constexpr uint32_t kReplayedGraph = 8;  // ranks 1 and 2 replay it each step, recorded whole

int HostOf(uint32_t rank) { return rank < 2 ? 0 : 1; }

std::string TracePath(const std::string& directory, int host, uint32_t pid) {
  return directory + "/" + (host == 0 ? kFirstHost : kSecondHost) + "." + std::to_string(pid) +
         ".vtrace";
}

// The time host `host`'s CLOCK_MONOTONIC read at realtime `realtime`.
uint64_t Monotonic(int host, uint64_t realtime) { return realtime - kHostOffset[host]; }

struct StepTimes {
  std::array<uint64_t, 4> world_enter, world_exit, local_enter, local_exit, p2p_enter, p2p_exit;
};

StepTimes MakeStep(int step, std::mt19937_64& random) {
  StepTimes times{};
  const uint64_t base = kStart + static_cast<uint64_t>(step) * kStep;
  uint64_t last = 0;
  for (uint32_t rank = 0; rank < 4; ++rank) {
    times.world_enter[rank] = base + random() % 5000;
    last = std::max(last, times.world_enter[rank]);
  }
  // Step 2: ranks 1 and 3 arrive last at the same instant, on different hosts.
  if (step == 2) times.world_enter[1] = times.world_enter[3] = last;
  for (uint32_t rank = 0; rank < 4; ++rank) {
    times.world_exit[rank] = last + 20'000 + random() % 100;
    times.local_enter[rank] = base + 100'000 + random() % 3000;
    times.local_exit[rank] = base + 150'000 + random() % 50;
    times.p2p_enter[rank] = base + 300'000 + random() % 2000;
    times.p2p_exit[rank] = base + 320'000 + random() % 50;
  }
  return times;
}

void AddClockSamples(TraceFileBuilder& trace, int host) {
  const std::vector<int64_t> scatter =
      host == 0 ? std::vector<int64_t>{0, 10, -30} : std::vector<int64_t>{0, 20};
  for (const int64_t delta : scatter) {
    trace.AddClockSample(1000, static_cast<uint64_t>(1000 + kHostOffset[host] + delta));
  }
}

vprof::trace::NcclEvent P2p(TraceFileBuilder& trace, bool send, uint32_t rank, uint32_t peer,
                            uint64_t seq, uint64_t enter, uint64_t exit) {
  auto event =
      trace.Event(send ? "ncclSend" : "ncclRecv", kWorld, 4, rank, seq, 1 << 16, enter, exit);
  event.set_peer(static_cast<int32_t>(peer));
  return event;
}

// Rank 1 sends to rank 2 (across hosts), rank 0 to rank 1 (within n1).
void AddPointToPoint(TraceFileBuilder& trace, uint32_t rank, uint64_t seq, int host,
                     const StepTimes& t, std::vector<vprof::trace::NcclEvent>& batch) {
  const uint64_t enter = Monotonic(host, t.p2p_enter[rank]);
  const uint64_t exit = Monotonic(host, t.p2p_exit[rank]);
  if (rank == 0) batch.push_back(P2p(trace, true, 0, 1, seq, enter, exit));
  if (rank == 1) {
    batch.push_back(P2p(trace, false, 1, 0, seq, enter, exit));
    batch.push_back(P2p(trace, true, 1, 2, seq, enter + 10, exit + 10));
  }
  if (rank == 2) batch.push_back(P2p(trace, false, 2, 1, seq, enter, exit));
}

// The world's plugin context as NCCL describes it: at init, and again with
// its finalize time when it finalizes it.
void DescribeWorldContext(PluginTraceBuilder& process, uint32_t rank, uint64_t init_ns,
                          uint64_t finalize_ns) {
  vprof::trace::TracePacket packet;
  vprof::trace::NcclPluginComm& comm = *packet.mutable_nccl_plugin_batch()->add_comm();
  comm.set_context_id(kWorldContext);
  comm.set_comm_hash(kWorldHash);
  comm.set_name_iid(process.trace().Intern("world"));
  comm.set_nnodes(2);
  comm.set_nranks(4);
  comm.set_rank(rank);
  comm.set_init_ns(init_ns);
  comm.set_finalize_ns(finalize_ns);
  process.trace().AddPacket(std::move(packet));
}

// A plugin batch that only says `dropped` events were lost to a full pool.
void AddLostPluginEvents(PluginTraceBuilder& process, uint64_t dropped) {
  vprof::trace::TracePacket packet;
  packet.mutable_nccl_plugin_batch()->set_dropped(dropped);
  process.trace().AddPacket(std::move(packet));
}

// What NCCL reported to the plugin of one step's calls. Rank 0's step-1
// all-reduce was captured into a CUDA graph; rank 2 ran its all-gathers with
// LL although it asked for Simple, and lost step 0's recv to a full pool.
void AddPluginStep(PluginTraceBuilder& process, uint32_t rank, int step) {
  process.AddPluginColls(kWorldContext, "AllReduce", "RING", "SIMPLE", 2, 1,
                         rank == 0 && step == 1);
  process.AddPluginColls(kHostContext, "AllGather", "RING", rank == 2 ? "LL" : "SIMPLE", 2, 1);
  if (rank == 0 || rank == 1) process.AddPluginP2ps(kWorldContext, "Send", 1);
  if (rank == 2 && step == 0) {
    AddLostPluginEvents(process, 1);
  } else if (rank == 1 || rank == 2) {
    process.AddPluginP2ps(kWorldContext, "Recv", 1);
  }
}

// One step's NVTX ranges on the training thread, in the order they end: step
// holding forward (itself holding a forward) and backward, an NCCL-domain
// range that is no phase, and on rank 2 a name no rule matches.
void AddNvtxStep(TraceFileBuilder& trace, int host, uint32_t rank, int step) {
  const uint64_t begin = Monotonic(host, kStart + static_cast<uint64_t>(step) * kStep);
  vprof::trace::TracePacket packet;
  vprof::trace::NvtxBatch& batch = *packet.mutable_nvtx_batch();
  batch.set_tid(7);
  auto add = [&](std::string_view name, uint64_t start, uint64_t stop, uint32_t depth,
                 uint64_t domain_iid = 0) {
    vprof::trace::NvtxRange& range = *batch.add_range();
    range.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
    range.set_name_iid(trace.Intern(name));
    range.set_domain_iid(domain_iid);
    range.set_start_ns(begin + start);
    range.set_end_ns(begin + stop);
    range.set_depth(depth);
  };
  add("forward", 20'000, 200'000 + rank, 2);
  add("forward", 10'000, 300'000 + rank * 10, 1);
  add("backward", 300'000, 700'000, 1);
  add("AllReduce", 700'000, 750'000, 0, trace.Intern("NCCL"));
  add("step", 0, 900'000 + rank * 100, 0);
  if (rank == 2) add("custom_eval", 900'000, 950'000, 0);
  trace.AddPacket(std::move(packet));
}

void WriteRank(const std::string& directory, uint32_t rank, const std::vector<StepTimes>& steps) {
  const int host = HostOf(rank);
  const uint32_t pid = 200 + rank;
  PluginTraceBuilder process(host == 0 ? kFirstHost : kSecondHost, pid, std::nullopt);
  TraceFileBuilder& trace = process.trace();
  process.SetEnv("NCCL_ALGO", "Ring");
  process.SetEnv("NCCL_PROTO", "Simple");
  process.SetEnv("LD_PRELOAD", kPreload);
  AddClockSamples(trace, host);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  process.AddInjection(true, kPluginVersion);
  const uint64_t created = Monotonic(host, kStart - kStep);
  trace.AddCommunicator(kWorld, 4, rank, "ncclCommInitRank", created, created + 100 * (rank + 1));
  trace.AddCommunicator(kHostComm[host], 2, rank % 2, "ncclCommInitRank", created + 1000,
                        created + 1500 + rank);
  DescribeWorldContext(process, rank, created, 0);
  process.AddPluginComm(kHostContext, kHostHash[host], "", 2, rank % 2);
  // Rank 1's plugin lost the description of a communicator, not its event:
  // one all-reduce more than the wrappers saw, in a context nobody described.
  if (rank == 1) process.AddPluginColls(kUndescribedContext, "AllReduce", "RING", "SIMPLE", 2, 1);
  if (rank == 3) process.AddApiCalls("cudaIpcGetMemHandle", 1, 2'500);
  size_t cut_at = 0;
  for (int step = 0; step < kSteps; ++step) {
    const StepTimes& t = steps[static_cast<size_t>(step)];
    const uint64_t seq = static_cast<uint64_t>(step) + 1;
    std::vector<vprof::trace::NcclEvent> batch = {
        trace.Event("ncclAllReduce", kWorld, 4, rank, seq, 1 << 20,
                    Monotonic(host, t.world_enter[rank]), Monotonic(host, t.world_exit[rank])),
        trace.Event("ncclAllGather", kHostComm[host], 2, rank % 2, seq, 1 << 14,
                    Monotonic(host, t.local_enter[rank]), Monotonic(host, t.local_exit[rank])),
    };
    // GPU activity, its all-reduce kernel linked to the call by call_id.
    const uint64_t call_id = 1000 * rank + seq;
    const uint32_t correlation = static_cast<uint32_t>(call_id);
    batch[0].set_call_id(call_id);
    AddPointToPoint(trace, rank, seq, host, t, batch);
    if (step == kCutAfterStep + 1) cut_at = trace.bytes().size() + 20;
    trace.AddBatch(batch);
    GpuBatchBuilder gpu(trace);
    // Rank 1's graph was listed as it was instantiated (6 kernel nodes, 2 fills, a copy); rank
    // 2's was not.
    if (rank == 1 && step == 0) {
      gpu.GraphNodes(kReplayedGraph, 1, {{"sim_fwd_kernel", 3}, {"sim_bwd_kernel", 2}}, 1, 2, 1);
    }
    if (rank == 1 || rank == 2) gpu.GraphReplay(kReplayedGraph, 40'000 + rank);
    gpu.External(call_id, correlation)
        .Api("cudaLaunchKernel", correlation)
        .Kernel(kRingKernel, 15'000 + seq * 10 + rank, correlation)
        .Kernel("sim_fwd_kernel", 300'000)
        .Memcpy(1 << 16, 2'000 + rank)
        .EventRecord(1, seq)
        .Sync(2, 500, 2, seq)
        .Write();
    AddPluginStep(process, rank, step);
    AddNvtxStep(trace, host, rank, step);
  }
  // Replays of the graph rank 0 captured in step 1: kernels without a call.
  if (rank == 0) process.AddKernels(kRingKernel, 2, 15'000, kCapturedGraph);
  // n1's ranks finish with an all-to-all, which NCCL runs as send/recv: the
  // plugin sees point-to-point operations where the wrappers saw a collective.
  if (host == 0) {
    const uint64_t at = Monotonic(host, kStart + kSteps * kStep - kStep / 2);
    trace.AddBatch({trace.Event("ncclAlltoAll", kHostComm[host], 2, rank, kSteps + 1, 1 << 12,
                                at + rank, at + 5'000)});
    process.AddPluginP2ps(kHostContext, "Send", 2);
    process.AddPluginP2ps(kHostContext, "Recv", 2);
  }
  const uint64_t end = Monotonic(host, kStart + kSteps * kStep);
  trace.AddBatch(
      {trace.Event("ncclCommDestroy", kWorld, 4, rank, 0, 0, end, end + 40 + rank),
       trace.Event("ncclCommDestroy", kHostComm[host], 2, rank % 2, 0, 0, end + 100, end + 130)});
  DescribeWorldContext(process, rank, created, end + 40 + rank);
  // The Footer's drops that no batch reported: rank 0's CUPTI lost 2 records,
  // rank 2's plugin 3 events (its batches said 1).
  std::map<std::string, uint64_t> dropped;
  if (rank == 0) dropped["cupti"] = 2;
  if (rank == 2) dropped["nccl_plugin"] = 3;
  const std::string path = TracePath(directory, host, pid);
  process.WriteTo(path, 0, dropped);
  if (static_cast<int>(rank) == kCutRank) {
    // The file's RunHeader grew by the environment: the cut moves with it.
    const uint64_t header_growth = std::filesystem::file_size(path) - trace.bytes().size();
    std::filesystem::resize_file(path, cut_at + header_growth);
  }
}

// A worker on n1 that reaches NCCL only through a handle vprof does not wrap
// (vLLM's PyNccl): no wrapper events, but what the plugin and the kernels saw
// of a 2-rank communicator whose other member was not traced, run with Tree
// although it asked for Ring, beside vLLM's custom all-reduce over CUDA IPC.
void WriteHandleWorker(const std::string& directory) {
  constexpr uint32_t kPid = 60;
  PluginTraceBuilder process(kFirstHost, kPid, std::nullopt);
  process.SetEnv("NCCL_ALGO", "Ring");
  process.SetEnv("LD_PRELOAD", kPreload);
  AddClockSamples(process.trace(), 0);
  AddGpuCaptureStatus(process.trace(), vprof::trace::GPU_CAPTURE_ACTIVE);
  process.AddInjection(true, kPluginVersion);
  process.AddPluginComm(1, 0xC001, "tp", 2, 0);
  process.AddPluginColls(1, "AllReduce", "TREE", "LL", 4, 3);
  process.AddKernels("ncclDevKernel_AllReduce_Sum_bf16_TREE_LL", 3, 8'000);
  process.AddKernels("cross_device_reduce_1stage<__nv_bfloat16, 2>", 4, 9'000);
  process.AddApiCalls("cudaIpcOpenMemHandle", 2, 3'000);
  process.WriteTo(TracePath(directory, 0, kPid));
}

}  // namespace

void WriteTwoNodeRun(const std::string& directory) {
  std::mt19937_64 random(20261130);
  std::vector<StepTimes> steps;
  for (int step = 0; step < kSteps; ++step) steps.push_back(MakeStep(step, random));
  for (uint32_t rank = 0; rank < 4; ++rank) WriteRank(directory, rank, steps);
  WriteHandleWorker(directory);
  PluginTraceBuilder launcher(kFirstHost, 50, std::nullopt);
  AddClockSamples(launcher.trace(), 0);
  launcher.AddInjection(false, 0, "NCCL was not loaded");
  launcher.WriteTo(TracePath(directory, 0, 50));
}

}  // namespace vprof::reporter::testing
