// The bitwise comparison on runs built in memory: calls that one side did not fingerprint are
// skipped and counted, calls one run did not make and changed counts are metadata, the
// profile is the set of classes that explains every difference, and a setting only one run
// recorded is a gap of capture, not a difference.
#include <catch2/catch.hpp>
#include <sstream>

#include "reporter/drift/bitwise_diff.h"
#include "reporter/drift/bitwise_output.h"

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

std::string Text(const BitwiseDiff& d) {
  std::ostringstream out;
  WriteBitwiseText(d, std::nullopt, out);
  return out.str();
}

RunFingerprints WithVersions(RunFingerprints run, uint32_t nccl, uint32_t cuda_runtime) {
  for (auto& r : run.ranks) {
    r.nccl_version = nccl;
    r.cuda_runtime = cuda_runtime;
    r.nccl_env["NCCL_DEBUG"] = "WARN";
  }
  return run;
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

TEST_CASE("a version only one run recorded is a gap of capture, not a difference") {
  const std::vector<FingerprintedCall> calls = {Call(1, 10, 11)};
  const BitwiseDiff d =
      Compare(WithVersions(Run("a", calls), 0, 13000), WithVersions(Run("b", calls), 22809, 13000));
  CHECK(d.settings.empty());
  REQUIRE(d.settings_recorded_once.size() == 1);
  CHECK(d.settings_recorded_once[0].name == "NCCL version");
  CHECK(d.settings_recorded_once[0].run == 'B');
  CHECK(d.settings_recorded_once[0].value == "22809");
  const std::string text = Text(d);
  CHECK(text.find("Recorded settings: the same in both runs") != std::string::npos);
  CHECK(text.find("Recorded settings that differ") == std::string::npos);
  CHECK(text.find("Recorded in one run only (a gap of capture, not a difference):\n"
                  "    NCCL version recorded in B only (22809)\n") != std::string::npos);
}

TEST_CASE("the same settings list nothing; versions both runs recorded differ as before") {
  const std::vector<FingerprintedCall> calls = {Call(1, 10, 11)};
  const BitwiseDiff same = Compare(WithVersions(Run("a", calls), 22809, 13000),
                                   WithVersions(Run("b", calls), 22809, 13000));
  CHECK(same.settings.empty());
  CHECK(same.settings_recorded_once.empty());
  CHECK(Text(same).find("one run only") == std::string::npos);
  const BitwiseDiff other =
      Compare(WithVersions(Run("a", calls), 22809, 13000), WithVersions(Run("b", calls), 22903, 0));
  REQUIRE(other.settings.size() == 1);
  CHECK(other.settings[0].name == "NCCL version");
  CHECK(other.settings[0].a == "22809");
  CHECK(other.settings[0].b == "22903");
  REQUIRE(other.settings_recorded_once.size() == 1);
  CHECK(other.settings_recorded_once[0].name == "CUDA runtime version");
  CHECK(other.settings_recorded_once[0].run == 'A');
}

}  // namespace vprof::reporter
