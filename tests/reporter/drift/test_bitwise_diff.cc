// The bitwise comparison on runs built in memory: calls that one side did not fingerprint are
// skipped and counted, calls one run did not make and changed counts are metadata, and the
// profile is the set of classes that explains every difference.
#include <catch2/catch.hpp>

#include "reporter/drift/bitwise_diff.h"

namespace vprof::reporter {
namespace {

constexpr int32_t kFingerprinted = 1, kSkippedGraphCapture = 2;
constexpr int32_t kFloat32 = 7, kBfloat16 = 9;

FingerprintedCall Call(uint64_t seq, uint64_t input, uint64_t output) {
  FingerprintedCall c;
  c.function = "ncclAllReduce";
  c.seq = seq;
  c.count = 1024;
  c.datatype = kFloat32;
  c.red_op = 0;
  c.enter_ns = seq * 1000;
  c.state = kFingerprinted;
  c.input = input;
  c.output = output;
  return c;
}

// Two ranks, one communicator, the same calls on both ranks.
RunFingerprints Run(const std::string& dir, const std::vector<FingerprintedCall>& calls) {
  RunFingerprints run;
  run.directory = dir;
  for (int32_t rank = 0; rank < 2; ++rank) {
    RankFingerprints r;
    r.rank = rank;
    r.host = "h";
    r.audit = "fingerprint";
    r.audit_every = 1;
    r.fingerprint_version = 1;
    r.comms.push_back({42, 2, static_cast<uint32_t>(rank), "ncclCommInitRank", calls});
    run.ranks.push_back(r);
  }
  return run;
}

BitwiseDiff Compare(const RunFingerprints& a, const RunFingerprints& b) {
  BitwiseDiff d;
  std::string error;
  REQUIRE(CompareFingerprints(a, b, &d, &error));
  return d;
}

}  // namespace

TEST_CASE("a call either run did not fingerprint is skipped, counted, never taken for agreement") {
  std::vector<FingerprintedCall> calls = {Call(1, 10, 11), Call(2, 20, 21), Call(3, 30, 31)};
  auto skipped = calls;
  skipped[1].state = kSkippedGraphCapture;
  skipped[1].input.reset();
  skipped[1].output.reset();
  skipped[2].output = 99;
  const BitwiseDiff d = Compare(Run("a", calls), Run("b", skipped));
  CHECK(d.not_compared == 1);
  CHECK(d.agreed == 1);
  REQUIRE(d.first);
  CHECK(d.first->seq == 3);
  CHECK(d.drift == DriftClass::kReduction);
  REQUIRE(d.last_agreeing);
  CHECK(d.last_agreeing->seq == 1);
  CHECK(d.profile == "A2");
}

TEST_CASE("a call only one run made, or a changed count, is metadata and makes the profile A5") {
  std::vector<FingerprintedCall> calls = {Call(1, 10, 11), Call(2, 20, 21)};
  const BitwiseDiff fewer = Compare(Run("a", calls), Run("b", {calls[0]}));
  CHECK(fewer.drift == DriftClass::kMetadata);
  CHECK(fewer.detail == "made in A only, on ranks 0, 1");
  CHECK(fewer.profile == "A5");
  auto recounted = calls;
  recounted[0].count = 512;
  const BitwiseDiff counts = Compare(Run("a", calls), Run("b", recounted));
  CHECK(counts.drift == DriftClass::kMetadata);
  CHECK(counts.detail == "count 1024 in A, 512 in B, on ranks 0, 1");
}

TEST_CASE("a reduction difference, then a dtype change later, make two axes: A4") {
  std::vector<FingerprintedCall> calls = {Call(1, 10, 11), Call(2, 20, 21), Call(3, 30, 31)};
  auto other = calls;
  other[0].output = 12;  // inputs agree, output differs: reduction
  other[1].input = 22;   // a consequence of the first difference
  other[2].datatype = kBfloat16;
  const BitwiseDiff d = Compare(Run("a", calls), Run("b", other));
  CHECK(d.drift == DriftClass::kReduction);
  CHECK(d.differing == 3);
  CHECK(d.axes == std::set<DriftClass>{DriftClass::kRepresentation, DriftClass::kReduction});
  CHECK(d.profile == "A4");
}

TEST_CASE("runs that cannot be compared are refused with the run and the reason") {
  auto a = Run("runA", {Call(1, 1, 1)});
  auto b = Run("runB", {Call(1, 1, 1)});
  for (auto& r : b.ranks) r.audit.clear();
  BitwiseDiff d;
  std::string error;
  CHECK_FALSE(CompareFingerprints(a, b, &d, &error));
  CHECK(error ==
        "B (runB): its collectives were not fingerprinted (run it with VPROF_AUDIT=fingerprint)");
  b = Run("runB", {Call(1, 1, 1)});
  for (auto& r : b.ranks) r.audit_every = 4;
  CHECK_FALSE(CompareFingerprints(a, b, &d, &error));
  CHECK(error.find("VPROF_AUDIT_EVERY") != std::string::npos);
}

}  // namespace vprof::reporter
