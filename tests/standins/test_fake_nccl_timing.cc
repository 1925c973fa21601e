// Unit tests of the fake NCCL's timing model: a call returns about
// latency + S * busfactor / busbw after the last rank arrived (see README.md), on every rank.
// The bandwidths are low so that the simulated time dwarfs the real cost of moving the data on
// a small, shared machine. A span can never be shorter than the model (the sleep is to an
// absolute deadline after the last arrival), only longer when the machine is busy, so the
// checks use the shortest of several calls.
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <vector>

#include "monotonic_clock.h"
#include "test_fork_ranks.h"

namespace {

using standins_test::AllZero;
using standins_test::RankCheck;
using standins_test::RunRanks;
using standins_test::SharedArray;

constexpr double kTolerance = 0.15;

// Enter and exit stamps of every rank's calls, for the parent to analyse.
struct Timeline {
  Timeline(int nranks, int calls) : nranks(nranks), stamps(2 * nranks * calls) {}
  uint64_t& enter(int call, int rank) { return stamps[2 * (call * nranks + rank)]; }
  uint64_t& exit(int call, int rank) { return stamps[2 * (call * nranks + rank) + 1]; }

  // max over ranks of exit - max over ranks of enter: what a profiler sees as the collective's
  // duration once the last rank arrived.
  double SpanNs(int call) {
    uint64_t last_enter = 0, last_exit = 0;
    for (int rank = 0; rank < nranks; ++rank) {
      last_enter = std::max(last_enter, enter(call, rank));
      last_exit = std::max(last_exit, exit(call, rank));
    }
    return static_cast<double>(last_exit - last_enter);
  }
  double ExitSpreadNs(int call) {
    uint64_t first = UINT64_MAX, last = 0;
    for (int rank = 0; rank < nranks; ++rank) {
      first = std::min(first, exit(call, rank));
      last = std::max(last, exit(call, rank));
    }
    return static_cast<double>(last - first);
  }

  int nranks;
  SharedArray<uint64_t> stamps;
};

// On `nranks` ranks with FAKE_NCCL_BUSBW_GBPS=busbw_gbps, makes one untimed warm-up call and
// then `calls` timed calls of call(rank, comm), stamping each into the timeline.
void TimeCalls(int nranks, const char* busbw_gbps, int calls, Timeline* timeline,
               const std::function<ncclResult_t(int, ncclComm_t)>& call) {
  ncclUniqueId id;
  REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  CHECK(RunRanks(nranks, [&](int rank) {
          RankCheck check(rank);
          setenv("FAKE_NCCL_BUSBW_GBPS", busbw_gbps, 1);
          ncclComm_t comm = nullptr;
          if (!check(ncclCommInitRank(&comm, nranks, id, rank) == ncclSuccess, "init") ||
              !check(call(rank, comm) == ncclSuccess, "warm-up call")) {
            return 1;
          }
          for (int i = 0; i < calls; ++i) {
            timeline->enter(i, rank) = standins::MonotonicNs();
            check(call(rank, comm) == ncclSuccess, "call");
            timeline->exit(i, rank) = standins::MonotonicNs();
          }
          ncclCommDestroy(comm);
          return check.exit_code();
        }) == AllZero(nranks));
}

double ShortestSpanNs(Timeline& timeline, int calls) {
  double shortest = timeline.SpanNs(0);
  for (int i = 1; i < calls; ++i) shortest = std::min(shortest, timeline.SpanNs(i));
  return shortest;
}

double MedianExitSpreadNs(Timeline& timeline, int calls) {
  std::vector<double> spreads;
  for (int i = 0; i < calls; ++i) spreads.push_back(timeline.ExitSpreadNs(i));
  std::sort(spreads.begin(), spreads.end());
  return spreads[spreads.size() / 2];
}

}  // namespace

TEST_CASE("all-reduce takes latency + 2(n-1)/n * S / busbw after the last arrival", "[fake_nccl]") {
  constexpr int kRanks = 4;
  constexpr int kCalls = 5;
  constexpr size_t kCount = (8 << 20) / sizeof(float);  // S = 8 MiB
  Timeline timeline(kRanks, kCalls);
  TimeCalls(kRanks, "0.25", kCalls, &timeline, [](int rank, ncclComm_t comm) {
    static std::vector<float> data(kCount, static_cast<float>(rank));
    return ncclAllReduce(data.data(), data.data(), kCount, ncclFloat32, ncclSum, comm, nullptr);
  });
  const double expected_ns = 5e3 + (8 << 20) * 2.0 * (kRanks - 1) / kRanks / 0.25;  // ~50 ms
  CHECK(ShortestSpanNs(timeline, kCalls) == Approx(expected_ns).epsilon(kTolerance));
  // Every rank leaves at about the same instant.
  CHECK(MedianExitSpreadNs(timeline, kCalls) < kTolerance * expected_ns);
}

TEST_CASE("all-gather takes latency + (n-1)/n * n * count * size / busbw", "[fake_nccl]") {
  constexpr int kRanks = 4;
  constexpr int kCalls = 5;
  constexpr size_t kCount = (1 << 20) / sizeof(float);  // 1 MiB per rank, S = 4 MiB
  Timeline timeline(kRanks, kCalls);
  TimeCalls(kRanks, "0.125", kCalls, &timeline, [](int rank, ncclComm_t comm) {
    static std::vector<float> mine(kCount, static_cast<float>(rank));
    static std::vector<float> all(kCount * kRanks);
    return ncclAllGather(mine.data(), all.data(), kCount, ncclFloat32, comm, nullptr);
  });
  const double expected_ns = 5e3 + (4 << 20) * (kRanks - 1.0) / kRanks / 0.125;  // ~25 ms
  CHECK(ShortestSpanNs(timeline, kCalls) == Approx(expected_ns).epsilon(kTolerance));
}

TEST_CASE("send/receive takes latency + S / busbw", "[fake_nccl]") {
  constexpr int kCalls = 5;
  constexpr size_t kCount = (4 << 20) / sizeof(float);
  Timeline timeline(2, kCalls);
  TimeCalls(2, "0.2", kCalls, &timeline, [](int rank, ncclComm_t comm) {
    static std::vector<float> data(kCount, static_cast<float>(rank));
    return rank == 0 ? ncclSend(data.data(), kCount, ncclFloat32, 1, comm, nullptr)
                     : ncclRecv(data.data(), kCount, ncclFloat32, 0, comm, nullptr);
  });
  const double expected_ns = 5e3 + (4 << 20) / 0.2;  // ~21 ms
  CHECK(ShortestSpanNs(timeline, kCalls) == Approx(expected_ns).epsilon(kTolerance));
}

TEST_CASE("a late rank holds every rank back", "[fake_nccl]") {
  constexpr int kRanks = 3;
  constexpr int kLateRank = 1;
  constexpr uint64_t kLateNs = 30'000'000;
  Timeline timeline(kRanks, 1);
  TimeCalls(kRanks, "20", 1, &timeline, [](int rank, ncclComm_t comm) {
    // The stamp is taken before this sleep, so the late rank's lateness is part of the span.
    if (rank == kLateRank) standins::SleepUntilNs(standins::MonotonicNs() + kLateNs);
    int32_t value = 1;
    return ncclAllReduce(&value, &value, 1, ncclInt32, ncclSum, comm, nullptr);
  });
  for (int rank = 0; rank < kRanks; ++rank) {
    CHECK(timeline.exit(0, rank) >= timeline.enter(0, kLateRank) + kLateNs);
  }
}

TEST_CASE("a collective first waits for the work queued before it on its stream", "[fake_nccl]") {
  ncclUniqueId id;
  REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  ncclComm_t comm = nullptr;
  REQUIRE(ncclCommInitRank(&comm, 1, id, 0) == ncclSuccess);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  uint64_t kernel_ns = 20'000'000;
  void* args[] = {&kernel_ns};
  const uint64_t start = standins::MonotonicNs();
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(&TimeCalls), dim3(1), dim3(1), args, 0,
                           stream) == cudaSuccess);
  float value = 1;
  REQUIRE(ncclAllReduce(&value, &value, 1, ncclFloat32, ncclSum, comm, stream) == ncclSuccess);
  CHECK(standins::MonotonicNs() - start >= kernel_ns + 5'000);  // kernel + latency
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
}

TEST_CASE("with FAKE_NCCL_KERNELS=1 a collective is a kernel on its stream", "[fake_nccl]") {
  // Rank 1's stream is busy with a 30 ms kernel when it calls: the calls return at once on both
  // ranks, and each stream finishes the collective only after rank 1's stream reached it, as on
  // real NCCL, where a late GPU holds its peers' kernels.
  constexpr int kRanks = 2;
  constexpr uint64_t kBusyNs = 30'000'000;
  constexpr uint64_t kLatencyNs = 2'000'000;
  ncclUniqueId id;
  REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  SharedArray<uint64_t> stamps(3 * kRanks);  // per rank: enter, return, stream done
  SharedArray<uint64_t> busy_end(1);
  CHECK(RunRanks(kRanks, [&](int rank) {
          RankCheck check(rank);
          setenv("FAKE_NCCL_KERNELS", "1", 1);
          setenv("FAKE_NCCL_LATENCY_US", "2000", 1);
          ncclComm_t comm = nullptr;
          cudaStream_t stream = nullptr;
          if (!check(ncclCommInitRank(&comm, kRanks, id, rank) == ncclSuccess, "init") ||
              !check(cudaStreamCreate(&stream) == cudaSuccess, "stream")) {
            return 1;
          }
          if (rank == 1) {
            uint64_t kernel_ns = kBusyNs;
            void* args[] = {&kernel_ns};
            busy_end[0] = standins::MonotonicNs() + kBusyNs;
            check(cudaLaunchKernel(reinterpret_cast<const void*>(&TimeCalls), dim3(1), dim3(1),
                                   args, 0, stream) == cudaSuccess,
                  "busy kernel");
          }
          int32_t value = rank + 1;
          stamps[3 * rank] = standins::MonotonicNs();
          check(ncclAllReduce(&value, &value, 1, ncclInt32, ncclSum, comm, stream) == ncclSuccess,
                "all-reduce");
          stamps[3 * rank + 1] = standins::MonotonicNs();
          check(cudaStreamSynchronize(stream) == cudaSuccess, "synchronize");
          stamps[3 * rank + 2] = standins::MonotonicNs();
          check(value == 3, "the sum of both ranks");
          cudaStreamDestroy(stream);
          ncclCommDestroy(comm);
          return check.exit_code();
        }) == AllZero(kRanks));
  for (int rank = 0; rank < kRanks; ++rank) {
    INFO("rank " << rank);
    CHECK(stamps[3 * rank + 1] - stamps[3 * rank] < kBusyNs / 3);
    CHECK(stamps[3 * rank + 2] >= busy_end[0] + kLatencyNs);
  }
}
