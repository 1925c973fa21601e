// nccl-tests' S, bus factor and algbw, checked against values worked out by
// hand from the definitions (doc/PERFORMANCE.md of nccl-tests).
#include <catch2/catch.hpp>

#include "reporter/collectives/bandwidth.h"

using vprof::reporter::AlgorithmBandwidthGBps;
using vprof::reporter::BusFactor;
using vprof::reporter::CollectiveSizeBytes;
using vprof::reporter::NcclFunction;

TEST_CASE("all-reduce of 1 MiB in 100 us on 4 ranks") {
  // algbw = 1048576 B / 100000 ns = 10.48576 B/ns = 10.48576 GB/s;
  // busbw = algbw * 2 * (4 - 1) / 4 = 10.48576 * 1.5 = 15.72864 GB/s.
  const uint64_t size = CollectiveSizeBytes(NcclFunction::kAllReduce, 1 << 20, 4);
  CHECK(size == 1048576);
  const auto algbw = AlgorithmBandwidthGBps(size, 100'000);
  REQUIRE(algbw);
  CHECK(*algbw == Approx(10.48576));
  CHECK(BusFactor(NcclFunction::kAllReduce, 4) == Approx(1.5));
  CHECK(*algbw * BusFactor(NcclFunction::kAllReduce, 4) == Approx(15.72864));
}

TEST_CASE("per-rank counts are multiplied by the rank count") {
  // Each rank contributes 1000 bytes; 8 ranks gather 8000.
  for (NcclFunction op : {NcclFunction::kAllGather, NcclFunction::kReduceScatter,
                          NcclFunction::kAlltoAll, NcclFunction::kGather, NcclFunction::kScatter}) {
    CHECK(CollectiveSizeBytes(op, 1000, 8) == 8000);
    CHECK(BusFactor(op, 8) == Approx(0.875));  // (8 - 1) / 8
  }
  for (NcclFunction op : {NcclFunction::kAllReduce, NcclFunction::kBroadcast, NcclFunction::kBcast,
                          NcclFunction::kReduce, NcclFunction::kSendRecvPair}) {
    CHECK(CollectiveSizeBytes(op, 1000, 8) == 1000);
  }
}

TEST_CASE("all-gather of 256 KiB per rank on 8 ranks in 1 ms") {
  // S = 262144 * 8 = 2097152 B; algbw = 2097152 / 1e6 ns = 2.097152 GB/s;
  // busbw = 2.097152 * 7 / 8 = 1.835008 GB/s.
  const uint64_t size = CollectiveSizeBytes(NcclFunction::kAllGather, 262144, 8);
  CHECK(size == 2097152);
  const auto algbw = AlgorithmBandwidthGBps(size, 1'000'000);
  REQUIRE(algbw);
  CHECK(*algbw == Approx(2.097152));
  CHECK(*algbw * BusFactor(NcclFunction::kAllGather, 8) == Approx(1.835008));
}

TEST_CASE("bus factor is 1 for rooted and point-to-point ops") {
  for (NcclFunction op : {NcclFunction::kBroadcast, NcclFunction::kBcast, NcclFunction::kReduce,
                          NcclFunction::kSendRecvPair}) {
    CHECK(BusFactor(op, 16) == 1.0);
  }
  CHECK(BusFactor(NcclFunction::kAllReduce, 2) == Approx(1.0));  // 2 * 1 / 2
  CHECK(BusFactor(NcclFunction::kAllReduce, 1) == 0.0);          // nothing crosses a link
}

TEST_CASE("zero time has no bandwidth") { CHECK_FALSE(AlgorithmBandwidthGBps(1024, 0)); }

TEST_CASE("sizes saturate instead of wrapping") {
  CHECK(CollectiveSizeBytes(NcclFunction::kAllGather, uint64_t{1} << 62, 8) == UINT64_MAX);
}
