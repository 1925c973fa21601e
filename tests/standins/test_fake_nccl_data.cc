// Unit tests of the fake NCCL's data movement: every collective and send/receive over forked
// ranks, with results compared against values computed here. Message sizes exceed one shared
// memory slot, so the chunked rounds are exercised too.
#include <nccl.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "test_fork_ranks.h"

namespace {

using standins_test::AllZero;
using standins_test::RankCheck;
using standins_test::RunRanks;

constexpr int kRanks = 4;
// More float elements than one rank's slot half holds with 4 ranks, and not a multiple of 4.
constexpr size_t kLargeCount = 1'000'003;

ncclUniqueId NewId() {
  ncclUniqueId id;
  REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  return id;
}

// Runs body(rank, comm, check) on kRanks forked ranks of a fresh communicator.
template <typename Body>
std::vector<int> OnRanks(Body body, int nranks = kRanks) {
  const ncclUniqueId id = NewId();
  return RunRanks(nranks, [&](int rank) {
    RankCheck check(rank);
    ncclComm_t comm = nullptr;
    if (!check(ncclCommInitRank(&comm, nranks, id, rank) == ncclSuccess, "ncclCommInitRank")) {
      return 1;
    }
    body(rank, comm, check);
    check(ncclCommDestroy(comm) == ncclSuccess, "ncclCommDestroy");
    return check.exit_code();
  });
}

// Index of the first element that differs from expected(i), or -1.
template <typename T, typename Expected>
long FirstMismatch(const std::vector<T>& values, Expected expected) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!(values[i] == expected(i))) return static_cast<long>(i);
  }
  return -1;
}

}  // namespace

TEST_CASE("all-reduce combines every rank's data", "[fake_nccl]") {
  CHECK(OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
          // float sum, in place, over several rounds: element i of rank r holds r + i % 7.
          std::vector<float> sum(kLargeCount);
          for (size_t i = 0; i < sum.size(); ++i) sum[i] = static_cast<float>(rank + i % 7);
          check(ncclAllReduce(sum.data(), sum.data(), sum.size(), ncclFloat32, ncclSum, comm,
                              nullptr) == ncclSuccess,
                "float sum");
          check(FirstMismatch(sum, [](size_t i) { return 6.0f + 4.0f * (i % 7); }) == -1,
                "float sum values");

          std::vector<int32_t> in32(1000, rank * 10), max32(1000);
          check(ncclAllReduce(in32.data(), max32.data(), 1000, ncclInt32, ncclMax, comm, nullptr) ==
                        ncclSuccess &&
                    FirstMismatch(max32, [](size_t) { return 30; }) == -1,
                "int32 max");
          std::vector<int64_t> in64(1000, rank + 2), prod64(1000);
          check(ncclAllReduce(in64.data(), prod64.data(), 1000, ncclInt64, ncclProd, comm,
                              nullptr) == ncclSuccess &&
                    FirstMismatch(prod64, [](size_t) { return int64_t{2 * 3 * 4 * 5}; }) == -1,
                "int64 prod");
          std::vector<double> avg(1000, rank);
          check(ncclAllReduce(avg.data(), avg.data(), 1000, ncclFloat64, ncclAvg, comm, nullptr) ==
                        ncclSuccess &&
                    FirstMismatch(avg, [](size_t) { return 1.5; }) == -1,
                "double avg");
          std::vector<uint8_t> in8(1000, static_cast<uint8_t>(200 - rank)), min8(1000);
          check(ncclAllReduce(in8.data(), min8.data(), 1000, ncclUint8, ncclMin, comm, nullptr) ==
                        ncclSuccess &&
                    FirstMismatch(min8, [](size_t) { return uint8_t{197}; }) == -1,
                "uint8 min");
          std::vector<__nv_bfloat16> bf(64, __nv_bfloat16(static_cast<float>(rank)));
          check(ncclAllReduce(bf.data(), bf.data(), 64, ncclBfloat16, ncclSum, comm, nullptr) ==
                        ncclSuccess &&
                    static_cast<float>(bf[63]) == 6.0f,
                "bfloat16 sum");
        }) == AllZero(kRanks));
}

TEST_CASE("a PreMulSum operation scales each rank's input by its own scalar", "[fake_nccl]") {
  CHECK(OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
          float scalar = static_cast<float>(rank + 1);
          ncclRedOp_t op;
          check(ncclRedOpCreatePreMulSum(&op, &scalar, ncclFloat32, ncclScalarHostImmediate,
                                         comm) == ncclSuccess &&
                    op >= ncclNumOps,
                "create");
          scalar = 100;  // host-immediate: the value was read at creation
          std::vector<float> data(5000, 2.0f);
          check(ncclAllReduce(data.data(), data.data(), data.size(), ncclFloat32, op, comm,
                              nullptr) == ncclSuccess,
                "all-reduce");
          check(FirstMismatch(data, [](size_t) { return 2.0f * (1 + 2 + 3 + 4); }) == -1,
                "scaled sum");
          check(ncclAllReduce(data.data(), data.data(), 1, ncclInt32, op, comm, nullptr) ==
                    ncclInvalidArgument,
                "wrong datatype rejected");
          check(ncclRedOpDestroy(op, comm) == ncclSuccess, "destroy");
          check(ncclRedOpDestroy(op, comm) == ncclInvalidArgument, "destroyed twice");
        }) == AllZero(kRanks));
}

TEST_CASE("all-gather places rank r's data at block r", "[fake_nccl]") {
  constexpr size_t kPerRank = 300'001;
  CHECK(OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
          std::vector<float> gathered(kPerRank * kRanks, -1.0f);
          std::vector<float> mine(kPerRank);
          for (size_t i = 0; i < kPerRank; ++i) mine[i] = static_cast<float>(rank * 1000 + i % 100);
          check(ncclAllGather(mine.data(), gathered.data(), kPerRank, ncclFloat32, comm, nullptr) ==
                    ncclSuccess,
                "all-gather");
          check(FirstMismatch(gathered,
                              [](size_t i) {
                                return static_cast<float>((i / kPerRank) * 1000 +
                                                          (i % kPerRank) % 100);
                              }) == -1,
                "placement");
          // In place: the send buffer is this rank's block of the receive buffer.
          std::vector<int32_t> in_place(4 * kRanks, -1);
          for (int i = 0; i < 4; ++i) in_place[rank * 4 + i] = rank;
          check(ncclAllGather(in_place.data() + rank * 4, in_place.data(), 4, ncclInt32, comm,
                              nullptr) == ncclSuccess &&
                    FirstMismatch(in_place, [](size_t i) { return static_cast<int32_t>(i / 4); }) ==
                        -1,
                "in-place placement");
        }) == AllZero(kRanks));
}

TEST_CASE("broadcast copies the root's data to every rank", "[fake_nccl]") {
  CHECK(
      OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
        constexpr int kRoot = 2;
        std::vector<double> data(kLargeCount / 2, rank == kRoot ? 0.5 : -1.0);
        data[12345] = rank == kRoot ? 7.0 : -1.0;
        check(ncclBroadcast(data.data(), data.data(), data.size(), ncclFloat64, kRoot, comm,
                            nullptr) == ncclSuccess,
              "broadcast");
        check(FirstMismatch(data, [](size_t i) { return i == 12345 ? 7.0 : 0.5; }) == -1, "values");
        std::vector<int32_t> out(10, -1);
        const std::vector<int32_t> in(10, 42);
        check(ncclBcast(rank == 1 ? const_cast<int32_t*>(in.data()) : out.data(), 10, ncclInt32, 1,
                        comm, nullptr) == ncclSuccess,
              "ncclBcast");
        check(rank == 1 || FirstMismatch(out, [](size_t) { return 42; }) == -1, "ncclBcast values");
      }) == AllZero(kRanks));
}

TEST_CASE("reduce-scatter leaves block r of the reduction on rank r", "[fake_nccl]") {
  constexpr size_t kPerRank = 200'003;
  CHECK(OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
          std::vector<int64_t> send(kPerRank * kRanks);
          for (size_t i = 0; i < send.size(); ++i) send[i] = static_cast<int64_t>(i) * (rank + 1);
          std::vector<int64_t> recv(kPerRank, -1);
          check(ncclReduceScatter(send.data(), recv.data(), kPerRank, ncclInt64, ncclSum, comm,
                                  nullptr) == ncclSuccess,
                "reduce-scatter");
          // sum over ranks of (r+1) * global index = 10 * global index
          check(FirstMismatch(
                    recv,
                    [&](size_t i) { return static_cast<int64_t>(rank * kPerRank + i) * 10; }) == -1,
                "values");
        }) == AllZero(kRanks));
}

TEST_CASE("reduce, gather, scatter and all-to-all", "[fake_nccl]") {
  constexpr size_t kCount = 70'001;
  constexpr int kRoot = 1;
  CHECK(OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
          std::vector<float> in(kCount, static_cast<float>(rank + 1));
          std::vector<float> out(kCount * kRanks, -1.0f);
          check(ncclReduce(in.data(), rank == kRoot ? out.data() : nullptr, kCount, ncclFloat32,
                           ncclSum, kRoot, comm, nullptr) == ncclSuccess,
                "reduce");
          check(rank != kRoot || (out[0] == 10.0f && out[kCount - 1] == 10.0f), "reduce values");

          check(ncclGather(in.data(), rank == kRoot ? out.data() : nullptr, kCount, ncclFloat32,
                           kRoot, comm, nullptr) == ncclSuccess,
                "gather");
          check(rank != kRoot ||
                    FirstMismatch(
                        out, [](size_t i) { return static_cast<float>(i / kCount + 1); }) == -1,
                "gather placement");

          std::vector<int32_t> blocks(kCount * kRanks);
          for (size_t i = 0; i < blocks.size(); ++i) {
            blocks[i] = static_cast<int32_t>(rank * 100 + i / kCount);  // block j: for rank j
          }
          std::vector<int32_t> scattered(kCount, -1);
          check(ncclScatter(blocks.data(), scattered.data(), kCount, ncclInt32, kRoot, comm,
                            nullptr) == ncclSuccess &&
                    FirstMismatch(scattered, [&](size_t) { return kRoot * 100 + rank; }) == -1,
                "scatter");

          std::vector<int32_t> exchanged(kCount * kRanks, -1);
          check(ncclAlltoAll(blocks.data(), exchanged.data(), kCount, ncclInt32, comm, nullptr) ==
                        ncclSuccess &&
                    FirstMismatch(exchanged,
                                  [&](size_t i) {
                                    return static_cast<int32_t>((i / kCount) * 100 + rank);
                                  }) == -1,
                "all-to-all: block j comes from rank j");
        }) == AllZero(kRanks));
}

TEST_CASE("send and receive pairs inside a group do not deadlock", "[fake_nccl]") {
  // Larger than a p2p buffer, so it moves in several chunks.
  constexpr size_t kCount = 300'000;
  CHECK(OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
          const int right = (rank + 1) % kRanks;
          const int left = (rank + kRanks - 1) % kRanks;
          std::vector<float> to_right(kCount, static_cast<float>(rank));
          std::vector<float> from_left(kCount, -1.0f);
          std::vector<float> to_self(3, 9.0f), from_self(3, 0.0f);
          check(ncclGroupStart() == ncclSuccess, "group start");
          check(ncclSend(to_right.data(), kCount, ncclFloat32, right, comm, nullptr) == ncclSuccess,
                "send");
          check(ncclRecv(from_left.data(), kCount, ncclFloat32, left, comm, nullptr) == ncclSuccess,
                "recv");
          check(ncclSend(to_self.data(), 3, ncclFloat32, rank, comm, nullptr) == ncclSuccess &&
                    ncclRecv(from_self.data(), 3, ncclFloat32, rank, comm, nullptr) == ncclSuccess,
                "send to self");
          check(from_left[0] == -1.0f, "nothing moves before ncclGroupEnd");
          check(ncclGroupEnd() == ncclSuccess, "group end");
          check(FirstMismatch(from_left, [&](size_t) { return static_cast<float>(left); }) == -1,
                "ring values");
          check(from_self[2] == 9.0f, "self values");

          // Outside a group: blocking pairs 0 -> 1 and 3 -> 2.
          std::vector<int64_t> message(1000, rank);
          if (rank == 0 || rank == 3) {
            check(ncclSend(message.data(), 1000, ncclInt64, rank == 0 ? 1 : 2, comm, nullptr) ==
                      ncclSuccess,
                  "blocking send");
          } else {
            check(ncclRecv(message.data(), 1000, ncclInt64, rank == 1 ? 0 : 3, comm, nullptr) ==
                          ncclSuccess &&
                      message[999] == (rank == 1 ? 0 : 3),
                  "blocking recv");
          }
        }) == AllZero(kRanks));
}

TEST_CASE("collectives inside a group run at the outermost ncclGroupEnd, in order", "[fake_nccl]") {
  CHECK(OnRanks([](int rank, ncclComm_t comm, RankCheck& check) {
          std::vector<int32_t> a(100, rank), b(100, 1);
          check(ncclGroupStart() == ncclSuccess && ncclGroupStart() == ncclSuccess, "start");
          check(ncclAllReduce(a.data(), a.data(), 100, ncclInt32, ncclSum, comm, nullptr) ==
                    ncclSuccess,
                "first");
          check(ncclAllReduce(a.data(), b.data(), 100, ncclInt32, ncclMax, comm, nullptr) ==
                    ncclSuccess,
                "second");
          check(ncclGroupEnd() == ncclSuccess, "inner end");
          check(a[0] == rank && b[0] == 1, "nothing ran at the inner ncclGroupEnd");
          check(ncclGroupEnd() == ncclSuccess, "outer end");
          check(a[0] == 6 && b[0] == 6, "both ran, the second on the first's result");
        }) == AllZero(kRanks));
}
