// A CUPTI activity buffer of real records, built in memory, read through a
// CuptiLibrary whose record iterator and API names are the test's, encoded
// into a trace file and read back with libprotobuf.
#include <google/protobuf/stubs/common.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../interpose/trace_in_temp_dir.h"
#include "cupti/activity_drain.h"

namespace {

// The test's buffer layout: an array of record pointers, which only its own
// record iterator reads (CUPTI's layout is CUPTI's business).
CUptiResult CUPTIAPI next_record(uint8_t* buffer, size_t valid_bytes, CUpti_Activity** record) {
  auto* const* first = reinterpret_cast<CUpti_Activity* const*>(buffer);
  auto* const* last = first + valid_bytes / sizeof(CUpti_Activity*);
  auto* const* at = *record == nullptr ? first : std::find(first, last, *record) + 1;
  if (at >= last) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = *at;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI callback_name(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || cbid != 211) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = "cudaLaunchKernel";
  return CUPTI_SUCCESS;
}

vprof::CuptiLibrary test_cupti() {
  vprof::CuptiLibrary cupti;
  cupti.cuptiActivityGetNextRecord = next_record;
  cupti.cuptiGetCallbackName = callback_name;
  return cupti;
}

CUpti_ActivityKernel10 kernel(const char* name, uint64_t start) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.start = start;
  k.end = start + 10;
  return k;
}

CUpti_ActivityAPI launch(uint64_t start) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.start = start;
  a.end = start + 5;
  return a;
}

struct Drain : TraceInTempDir {
  Drain() : TraceInTempDir("drainhost", 77) {}

  vprof::ReadRecords read(std::vector<CUpti_Activity*>& records,
                          const vprof::RecordedSpans* spans = nullptr) {
    return vprof::ReadActivityBuffer(cupti, writer, reinterpret_cast<uint8_t*>(records.data()),
                                     records.size() * sizeof(CUpti_Activity*), spans);
  }

  vprof::CuptiLibrary cupti = test_cupti();
  const vprof::SourceCount count{"cupti", false};
};

}  // namespace

TEST_CASE_METHOD(Drain, "reading copies new names and writes nothing; encoding writes each once") {
  auto a1 = kernel("gemm", 100), a2 = kernel("gemm", 300), b = kernel("softmax", 400);
  auto before = launch(50), inside = launch(150);
  std::vector<CUpti_Activity*> records = {
      reinterpret_cast<CUpti_Activity*>(&before), reinterpret_cast<CUpti_Activity*>(&a1),
      reinterpret_cast<CUpti_Activity*>(&inside), reinterpret_cast<CUpti_Activity*>(&a2),
      reinterpret_cast<CUpti_Activity*>(&b)};
  vprof::RecordedSpans spans;  // one deep window, [100, 500)
  spans.Open(100);
  spans.Close(500);
  const vprof::ReadRecords read = this->read(records, &spans);

  using R = vprof::ReadRecords;
  CHECK(read.records.size() == 5);
  CHECK(read.new_names == std::vector<std::string>{"gemm", "cudaLaunchKernel", "softmax"});
  CHECK(read.names == std::vector<uint64_t>{R::kLeftOut, R::kNewName, R::kNewName + 1, R::kNewName,
                                            R::kNewName + 2});
  CHECK(writer.InternedId("gemm") == 0);  // not interned while reading

  REQUIRE(vprof::EncodeActivityBuffer(writer, read, 3, count));
  const uint64_t gemm = writer.InternedId("gemm"), softmax = writer.InternedId("softmax");
  const uint64_t api = writer.InternedId("cudaLaunchKernel");
  CHECK((gemm != 0 && softmax != 0 && api != 0));

  std::map<uint64_t, std::string> names;
  std::vector<std::pair<uint64_t, uint64_t>> kernels;  // name, start
  std::vector<uint64_t> api_starts;
  uint64_t dropped = 0;
  for (const auto& p : finished_packets()) {
    if (p.has_interned_string()) names[p.interned_string().iid()] = p.interned_string().str();
    if (!p.has_gpu_batch()) continue;
    dropped += p.gpu_batch().dropped();
    for (const auto& k : p.gpu_batch().kernel()) kernels.emplace_back(k.name_iid(), k.start_ns());
    for (const auto& c : p.gpu_batch().api()) {
      CHECK(c.name_iid() == api);
      api_starts.push_back(c.start_ns());
    }
    // Names precede the records that use them.
    for (const auto& c : p.gpu_batch().kernel()) CHECK(names.count(c.name_iid()) == 1);
    for (const auto& c : p.gpu_batch().api()) CHECK(names.count(c.name_iid()) == 1);
  }
  CHECK(names[gemm] == "gemm");
  CHECK(names[softmax] == "softmax");
  CHECK(kernels ==
        std::vector<std::pair<uint64_t, uint64_t>>{{gemm, 100}, {gemm, 300}, {softmax, 400}});
  CHECK(api_starts == std::vector<uint64_t>{150});  // the one before the window left out
  CHECK(dropped == 3);
}

TEST_CASE_METHOD(Drain,
                 "a name the writer knows is read as its id; a full encoder splits the "
                 "batch, dropped counted once") {
  const uint64_t known = writer.Intern("gemm");
  // More records than one encoder's worth of batch (1 MiB).
  std::vector<CUpti_ActivityKernel10> kernels;
  for (uint64_t i = 0; i < 40000; ++i) kernels.push_back(kernel("gemm", 1000 + i));
  std::vector<CUpti_Activity*> records;
  for (auto& k : kernels) records.push_back(reinterpret_cast<CUpti_Activity*>(&k));
  const vprof::ReadRecords read = this->read(records);
  CHECK(read.new_names.empty());
  CHECK(
      std::all_of(read.names.begin(), read.names.end(), [&](uint64_t id) { return id == known; }));

  REQUIRE(vprof::EncodeActivityBuffer(writer, read, 7, count));
  size_t batches = 0, recorded = 0;
  uint64_t dropped = 0, next_start = 1000;
  for (const auto& p : finished_packets()) {
    if (p.has_footer()) {
      for (const auto& c : p.footer().counts()) {
        if (c.kind() == "cupti") CHECK((c.recorded() == 40000 && c.dropped() == 7));
      }
    }
    if (!p.has_gpu_batch()) continue;
    ++batches;
    dropped += p.gpu_batch().dropped();
    for (const auto& k : p.gpu_batch().kernel()) {
      CHECK(k.start_ns() == next_start++);  // in order, none lost across batches
      ++recorded;
    }
  }
  CHECK(batches >= 2);
  CHECK(recorded == 40000);
  CHECK(dropped == 7);
}
