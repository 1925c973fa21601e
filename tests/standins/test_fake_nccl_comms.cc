// Unit tests of the fake NCCL's communicators: init, split, ncclCommInitAll, timeouts,
// argument checking and the exported symbols.
#include <dirent.h>
#include <dlfcn.h>
#include <nccl.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "monotonic_clock.h"
#include "test_fork_ranks.h"

namespace {

using standins_test::AllZero;
using standins_test::RankCheck;
using standins_test::RunRanks;

ncclUniqueId NewId() {
  ncclUniqueId id;
  REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  return id;
}

bool ShmFileExists(const ncclUniqueId& id) {
  return access((std::string("/dev/shm/") + id.internal).c_str(), F_OK) == 0;
}

}  // namespace

TEST_CASE("a one-rank communicator works in-process", "[fake_nccl]") {
  const ncclUniqueId id = NewId();
  ncclComm_t comm = nullptr;
  REQUIRE(ncclCommInitRank(&comm, 1, id, 0) == ncclSuccess);
  CHECK_FALSE(ShmFileExists(id));  // unlinked once every rank joined
  int count = 0, rank = -1, device = -1;
  CHECK((ncclCommCount(comm, &count) == ncclSuccess && count == 1));
  CHECK((ncclCommUserRank(comm, &rank) == ncclSuccess && rank == 0));
  CHECK((ncclCommCuDevice(comm, &device) == ncclSuccess && device == 0));
  std::vector<float> in(10, 3.0f), out(10, 0.0f);
  REQUIRE(ncclAllReduce(in.data(), out.data(), 10, ncclFloat32, ncclSum, comm, nullptr) ==
          ncclSuccess);
  CHECK(out[9] == 3.0f);
  ncclResult_t async_error = ncclInternalError;
  CHECK((ncclCommGetAsyncError(comm, &async_error) == ncclSuccess && async_error == ncclSuccess));
  CHECK(ncclCommFinalize(comm) == ncclSuccess);
  CHECK(ncclCommDestroy(comm) == ncclSuccess);
}

TEST_CASE("ncclCommSplit groups ranks by color and orders them by key", "[fake_nccl]") {
  constexpr int kRanks = 4;
  const ncclUniqueId id = NewId();
  CHECK(RunRanks(kRanks, [&](int rank) {
          RankCheck check(rank);
          ncclComm_t world = nullptr;
          if (!check(ncclCommInitRank(&world, kRanks, id, rank) == ncclSuccess, "init")) return 1;
          // Colors by parity; key -rank reverses the order within a color.
          ncclComm_t half = nullptr;
          check(ncclCommSplit(world, rank % 2, -rank, &half, nullptr) == ncclSuccess && half,
                "split by parity");
          int count = 0, new_rank = -1;
          check(ncclCommCount(half, &count) == ncclSuccess && count == 2, "two per color");
          check(ncclCommUserRank(half, &new_rank) == ncclSuccess && new_rank == (rank < 2 ? 1 : 0),
                "reversed order");
          int value = rank;
          check(
              ncclAllReduce(&value, &value, 1, ncclInt32, ncclSum, half, nullptr) == ncclSuccess &&
                  value == (rank % 2 == 0 ? 0 + 2 : 1 + 3),
              "sums only its own color");

          // Rank 3 opts out; the others form one communicator ordered by parent rank.
          ncclComm_t rest = nullptr;
          check(ncclCommSplit(world, rank == 3 ? NCCL_SPLIT_NOCOLOR : 5, 0, &rest, nullptr) ==
                    ncclSuccess,
                "split with NOCOLOR");
          if (rank == 3) {
            check(rest == nullptr, "NOCOLOR gives NULL");
          } else {
            check(ncclCommCount(rest, &count) == ncclSuccess && count == 3 &&
                      ncclCommUserRank(rest, &new_rank) == ncclSuccess && new_rank == rank,
                  "three ranks in parent order");
          }
          for (ncclComm_t comm : {rest, half, world}) ncclCommDestroy(comm);
          return check.exit_code();
        }) == AllZero(kRanks));
}

TEST_CASE("ncclCommShrink needs only the ranks that remain", "[fake_nccl]") {
  constexpr int kRanks = 4;
  constexpr int kGone = 1;
  const ncclUniqueId id = NewId();
  CHECK(RunRanks(kRanks, [&](int rank) {
          RankCheck check(rank);
          ncclComm_t world = nullptr;
          if (!check(ncclCommInitRank(&world, kRanks, id, rank) == ncclSuccess, "init")) return 1;
          if (rank == kGone) return 0;  // leaves without a word
          int excluded = kGone;
          ncclComm_t shrunk = nullptr;
          check(ncclCommShrink(world, &excluded, 1, &shrunk, nullptr, NCCL_SHRINK_DEFAULT) ==
                    ncclSuccess,
                "shrink");
          int count = 0, new_rank = -1;
          check(ncclCommCount(shrunk, &count) == ncclSuccess && count == kRanks - 1 &&
                    ncclCommUserRank(shrunk, &new_rank) == ncclSuccess &&
                    new_rank == (rank < kGone ? rank : rank - 1),
                "remaining ranks keep their order");
          int value = rank;
          check(ncclAllReduce(&value, &value, 1, ncclInt32, ncclSum, shrunk, nullptr) ==
                        ncclSuccess &&
                    value == 0 + 2 + 3,
                "all-reduce over the remaining ranks");
          check(ncclCommShrink(world, &value, 1, &shrunk, nullptr, 7) == ncclInvalidArgument,
                "unknown flags");
          ncclCommDestroy(shrunk);
          ncclCommDestroy(world);
          return check.exit_code();
        }) == AllZero(kRanks));
}

TEST_CASE("ncclCommInitRankScalable joins with the ids every rank passes", "[fake_nccl]") {
  ncclUniqueId ids[2] = {NewId(), NewId()};
  ncclComm_t comm = nullptr;
  REQUIRE(ncclCommInitRankScalable(&comm, 1, 0, 2, ids, nullptr) == ncclSuccess);
  int count = 0;
  CHECK((ncclCommCount(comm, &count) == ncclSuccess && count == 1));
  CHECK(ncclCommDestroy(comm) == ncclSuccess);
  CHECK(ncclCommInitRankScalable(&comm, 1, 0, 0, ids, nullptr) == ncclInvalidArgument);
}

TEST_CASE("ncclCommInitAll creates ranks in one process; they cannot communicate", "[fake_nccl]") {
  ncclComm_t comms[3] = {};
  const int devices[3] = {4, 1, 7};
  REQUIRE(ncclCommInitAll(comms, 3, devices) == ncclSuccess);
  for (int i = 0; i < 3; ++i) {
    int rank = -1, count = 0, device = -1;
    CHECK((ncclCommUserRank(comms[i], &rank) == ncclSuccess && rank == i));
    CHECK((ncclCommCount(comms[i], &count) == ncclSuccess && count == 3));
    CHECK((ncclCommCuDevice(comms[i], &device) == ncclSuccess && device == devices[i]));
  }
  float value = 1;
  CHECK(ncclAllReduce(&value, &value, 1, ncclFloat32, ncclSum, comms[0], nullptr) ==
        ncclInvalidUsage);
  for (ncclComm_t comm : comms) CHECK(ncclCommDestroy(comm) == ncclSuccess);

  ncclComm_t single = nullptr;
  REQUIRE(ncclCommInitAll(&single, 1, nullptr) == ncclSuccess);
  CHECK(ncclAllReduce(&value, &value, 1, ncclFloat32, ncclSum, single, nullptr) == ncclSuccess);
  CHECK(ncclCommDestroy(single) == ncclSuccess);
}

TEST_CASE("a rank that never arrives makes the others fail with ncclSystemError", "[fake_nccl]") {
  setenv("FAKE_NCCL_TIMEOUT_S", "1", 1);

  SECTION("at init") {
    const ncclUniqueId id = NewId();
    ncclComm_t comm = nullptr;
    const uint64_t start = standins::MonotonicNs();
    CHECK(ncclCommInitRank(&comm, 2, id, 0) == ncclSystemError);
    const uint64_t waited = standins::MonotonicNs() - start;
    CHECK(waited >= 1'000'000'000);
    CHECK(waited < 5'000'000'000);
    CHECK_FALSE(ShmFileExists(id));
    CHECK(std::string(ncclGetLastError(nullptr)).find("timeout") != std::string::npos);
  }
  SECTION("at a collective") {
    const ncclUniqueId id = NewId();
    CHECK(RunRanks(2, [&](int rank) {
            RankCheck check(rank);
            ncclComm_t comm = nullptr;
            if (!check(ncclCommInitRank(&comm, 2, id, rank) == ncclSuccess, "init")) return 1;
            if (rank == 1) return 0;  // leaves without taking part
            float value = 1;
            const uint64_t start = standins::MonotonicNs();
            check(ncclAllReduce(&value, &value, 1, ncclFloat32, ncclSum, comm, nullptr) ==
                      ncclSystemError,
                  "all-reduce times out");
            check(standins::MonotonicNs() - start >= 1'000'000'000, "after the timeout");
            ncclResult_t async_error = ncclSuccess;
            check(ncclCommGetAsyncError(comm, &async_error) == ncclSuccess &&
                      async_error == ncclSystemError,
                  "async error");
            check(ncclAllReduce(&value, &value, 1, ncclFloat32, ncclSum, comm, nullptr) ==
                      ncclInvalidUsage,
                  "the broken communicator refuses further calls");
            check(ncclCommAbort(comm) == ncclSuccess, "abort");
            return check.exit_code();
          }) == AllZero(2));
  }
  unsetenv("FAKE_NCCL_TIMEOUT_S");
}

TEST_CASE("bad arguments are rejected like NCCL does", "[fake_nccl]") {
  const ncclUniqueId id = NewId();
  ncclComm_t comm = nullptr;
  REQUIRE(ncclCommInitRank(&comm, 1, id, 0) == ncclSuccess);
  float value = 0;
  CHECK(ncclAllReduce(&value, &value, 1, ncclFloat32, ncclSum, nullptr, nullptr) ==
        ncclInvalidArgument);
  CHECK(ncclAllReduce(&value, &value, 1, static_cast<ncclDataType_t>(99), ncclSum, comm, nullptr) ==
        ncclInvalidArgument);
  CHECK(ncclAllReduce(&value, &value, 1, ncclFloat32, static_cast<ncclRedOp_t>(17), comm,
                      nullptr) == ncclInvalidArgument);
  CHECK(ncclAllReduce(nullptr, &value, 1, ncclFloat32, ncclSum, comm, nullptr) ==
        ncclInvalidArgument);
  CHECK(ncclBroadcast(&value, &value, 1, ncclFloat32, 1, comm, nullptr) == ncclInvalidArgument);
  CHECK(ncclSend(&value, 1, ncclFloat32, -1, comm, nullptr) == ncclInvalidArgument);
  CHECK(ncclCommSplit(comm, -5, 0, &comm, nullptr) == ncclInvalidArgument);
  CHECK(std::strlen(ncclGetLastError(comm)) > 0);

  ncclUniqueId forged{};
  std::strcpy(forged.internal, "../../etc/passwd");
  ncclComm_t other = nullptr;
  CHECK(ncclCommInitRank(&other, 1, forged, 0) == ncclInvalidArgument);
  CHECK(ncclCommInitRank(&other, 2, id, 2) == ncclInvalidArgument);
  ncclConfig_t config{};  // not from NCCL_CONFIG_INITIALIZER
  CHECK(ncclCommInitRankConfig(&other, 1, NewId(), 0, &config) == ncclInvalidArgument);
  CHECK(ncclGroupEnd() == ncclInvalidUsage);
  CHECK(ncclCommDestroy(comm) == ncclSuccess);
  CHECK(ncclCommDestroy(nullptr) == ncclSuccess);
}

TEST_CASE("version, error strings and the pnccl aliases", "[fake_nccl]") {
  int version = 0;
  REQUIRE(ncclGetVersion(&version) == ncclSuccess);
  CHECK(version == NCCL_VERSION_CODE);
  CHECK(std::string(ncclGetErrorString(ncclSystemError)) == "unhandled system error");
  for (const char* name :
       {"ncclAllReduce", "ncclCommInitRank", "ncclGroupEnd", "ncclSend", "ncclCommSplit",
        "ncclCommShrink", "ncclRedOpDestroy", "ncclGetLastError"}) {
    void* function = dlsym(RTLD_DEFAULT, name);
    CHECK(function != nullptr);
    CHECK(dlsym(RTLD_DEFAULT, (std::string("p") + name).c_str()) == function);
  }
  // Only the NCCL API is exported.
  CHECK(dlsym(RTLD_DEFAULT, "_ZN9fake_nccl6SubmitERKNS_9OperationE") == nullptr);
}
