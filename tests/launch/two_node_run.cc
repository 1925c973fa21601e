#include "two_node_run.h"

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu_batch_builder.h"
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

int HostOf(uint32_t rank) { return rank < 2 ? 0 : 1; }

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

void WriteRank(const std::string& directory, uint32_t rank, const std::vector<StepTimes>& steps) {
  const int host = HostOf(rank);
  const uint32_t pid = 200 + rank;
  TraceFileBuilder trace(host == 0 ? kFirstHost : kSecondHost, pid);
  AddClockSamples(trace, host);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  const uint64_t created = Monotonic(host, kStart - kStep);
  trace.AddCommunicator(kWorld, 4, rank, "ncclCommInitRank", created, created + 100 * (rank + 1));
  trace.AddCommunicator(kHostComm[host], 2, rank % 2, "ncclCommInitRank", created + 1000,
                        created + 1500 + rank);
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
    GpuBatchBuilder(trace)
        .External(call_id, correlation)
        .Api("cudaLaunchKernel", correlation)
        .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 15'000 + seq * 10 + rank, correlation)
        .Kernel("sim_fwd_kernel", 300'000)
        .Memcpy(1 << 16, 2'000 + rank)
        .EventRecord(1, seq)
        .Sync(2, 500, 2, seq)
        .Write();
  }
  const uint64_t end = Monotonic(host, kStart + kSteps * kStep);
  trace.AddBatch(
      {trace.Event("ncclCommDestroy", kWorld, 4, rank, 0, 0, end, end + 40 + rank),
       trace.Event("ncclCommDestroy", kHostComm[host], 2, rank % 2, 0, 0, end + 100, end + 130)});
  trace.AddFooter();
  const std::string path = directory + "/" + (host == 0 ? kFirstHost : kSecondHost) + "." +
                           std::to_string(pid) + ".vtrace";
  if (static_cast<int>(rank) == kCutRank) {
    trace.WriteTo(path, cut_at);
  } else {
    trace.WriteTo(path);
  }
}

}  // namespace

void WriteTwoNodeRun(const std::string& directory) {
  std::mt19937_64 random(20261130);
  std::vector<StepTimes> steps;
  for (int step = 0; step < kSteps; ++step) steps.push_back(MakeStep(step, random));
  for (uint32_t rank = 0; rank < 4; ++rank) WriteRank(directory, rank, steps);
  TraceFileBuilder launcher(kFirstHost, 50);
  AddClockSamples(launcher, 0);
  launcher.AddFooter();
  launcher.WriteTo(directory + "/" + kFirstHost + ".50.vtrace");
}

}  // namespace vprof::reporter::testing
