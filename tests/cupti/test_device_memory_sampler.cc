// The device-memory sampler over an NVML of the test's: GPUs learnt from
// DEVICE and kernel records, only those that ran kernels read, at most one
// reading each half interval but always one at the end, the outcome of
// loading NVML written once, and the reasons sampling cannot start.
#include <catch2/catch.hpp>
#include <climits>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../interpose/trace_in_temp_dir.h"
#include "cupti/device_memory_sampler.h"
#include "interpose/core/trace_writer.h"
#include "interpose/sources.h"

namespace nvml = vprof::nvml;

namespace {

// What the test's NVML knows: memory in use by UUID, read at each query.
std::map<std::string, unsigned long long> g_used;
constexpr unsigned long long kTotal = 141ull << 30;
int g_loads = 0;
int g_queries = 0;

nvml::Return FakeInit() { return nvml::kSuccess; }
const char* FakeError(nvml::Return) { return "error"; }
nvml::Return FakeHandle(const char* uuid, nvml::Device* device) {
  auto it = g_used.find(uuid);
  if (it == g_used.end()) return 6;
  *device = reinterpret_cast<nvml::Device>(&*it);
  return nvml::kSuccess;
}
nvml::Return FakeMemory(nvml::Device device, nvml::Memory* memory) {
  ++g_queries;
  const auto* entry =
      reinterpret_cast<const std::pair<const std::string, unsigned long long>*>(device);
  *memory = {kTotal, kTotal - entry->second, entry->second};
  return nvml::kSuccess;
}

bool FakeLoad(vprof::NvmlLibrary* lib, std::string*) {
  ++g_loads;
  lib->nvmlInit_v2 = FakeInit;
  lib->nvmlErrorString = FakeError;
  lib->nvmlDeviceGetHandleByUUID = FakeHandle;
  lib->nvmlDeviceGetMemoryInfo = FakeMemory;
  return true;
}

bool FailingLoad(vprof::NvmlLibrary*, std::string* error) {
  *error = "libnvidia-ml.so.1: cannot open shared object file: No such file or directory";
  return false;
}

CUpti_ActivityDevice5 Device(uint32_t id, unsigned char last) {
  CUpti_ActivityDevice5 d{};
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = id;
  d.isCudaVisible = 1;
  d.uuid.bytes[0] = static_cast<char>(0xab);
  d.uuid.bytes[15] = static_cast<char>(last);
  return d;
}

CUpti_ActivityKernel10 Kernel(uint32_t device) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.deviceId = device;
  return k;
}

const CUpti_Activity* AsRecord(const void* r) { return static_cast<const CUpti_Activity*>(r); }

// A GPU's DEVICE record and one kernel on it, as the writer drains them.
void NoteUsedDevice(vprof::DeviceMemorySampler& sampler, uint32_t id, unsigned char last) {
  const auto device = Device(id, last);
  const auto kernel = Kernel(id);
  sampler.Note(AsRecord(&device));
  sampler.Note(AsRecord(&kernel));
}

constexpr uint64_t kInterval = 250'000'000;

struct Sampled : TraceInTempDir {
  explicit Sampled(vprof::DeviceMemorySampler::Loader load)
      : TraceInTempDir("memhost", 79), sampler(load) {
    g_used.clear();
    g_loads = g_queries = 0;
    REQUIRE(writer.Flush());  // the header
  }

  bool put(uint64_t now_ns, bool at_end = false) {
    return sampler.PutSamples(writer, now_ns, kInterval, at_end);
  }

  std::vector<vprof::trace::TracePacket> packets() {
    std::vector<vprof::trace::TracePacket> out;
    for (const auto& p : finished_packets()) {
      if (p.has_device_memory() || p.has_device_memory_sampling()) out.push_back(p);
    }
    return out;
  }

  vprof::DeviceMemorySampler sampler;
};

}  // namespace

TEST_CASE("NVML's name of a CUDA UUID") {
  const std::array<char, 16> bytes = {'\xfa', '\x4e', '\xc0', '\xde', 0, 1, 0, 2,
                                      0,      3,      0,      0,      0, 0, 0, '\x2a'};
  CHECK(vprof::NvmlUuid(bytes) == "GPU-fa4ec0de-0001-0002-0003-00000000002a");
}

TEST_CASE("only GPUs that ran kernels are read, at most every half interval, always at the end") {
  Sampled s(FakeLoad);
  const auto d0 = Device(0, 0), d1 = Device(1, 1);
  g_used["GPU-ab000000-0000-0000-0000-000000000000"] = 3ull << 30;
  g_used["GPU-ab000000-0000-0000-0000-000000000001"] = 5ull << 30;
  s.sampler.Note(AsRecord(&d0));
  s.sampler.Note(AsRecord(&d1));
  REQUIRE(s.put(100));  // no kernel yet: NVML not even loaded
  CHECK(g_loads == 0);
  const auto k1 = Kernel(1);
  s.sampler.Note(AsRecord(&k1));
  REQUIRE(s.put(1000));
  REQUIRE(s.put(1000 + kInterval / 2 - 1));  // too soon
  g_used["GPU-ab000000-0000-0000-0000-000000000001"] = 7ull << 30;
  REQUIRE(s.put(1000 + kInterval / 2));
  REQUIRE(s.put(1000 + kInterval / 2 + 1, true));  // the end: at once
  CHECK(g_loads == 1);
  CHECK(g_queries == 3);

  const auto got = s.packets();
  REQUIRE(got.size() == 4);
  REQUIRE(got[0].has_device_memory_sampling());
  CHECK(got[0].device_memory_sampling().sampling());
  CHECK(got[0].device_memory_sampling().why_not().empty());
  CHECK(got[0].device_memory_sampling().interval_ns() == kInterval);
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {
      {1000, 5ull << 30},
      {1000 + kInterval / 2, 7ull << 30},
      {1000 + kInterval / 2 + 1, 7ull << 30}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& samples = got[i + 1].device_memory().sample();
    REQUIRE(samples.size() == 1);
    CHECK(samples[0].time_ns() == expected[i].first);
    CHECK(samples[0].device() == 1);
    CHECK(samples[0].used_bytes() == expected[i].second);
    CHECK(samples[0].total_bytes() == kTotal);
  }
}

TEST_CASE("a GPU that ran only CUDA-graph replays recorded whole is read too") {
  Sampled s(FakeLoad);
  const auto d0 = Device(0, 0), d1 = Device(1, 1);
  g_used["GPU-ab000000-0000-0000-0000-000000000001"] = 9ull << 30;
  s.sampler.Note(AsRecord(&d0));
  s.sampler.Note(AsRecord(&d1));
  // Started on the host (device INT_MAX), ended on GPU 1: GPU 1 ran it.
  CUpti_ActivityGraphTrace2 replay{};
  replay.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  replay.deviceId = INT_MAX;
  replay.endDeviceId = 1;
  s.sampler.Note(AsRecord(&replay));
  REQUIRE(s.put(1000, true));
  const auto got = s.packets();
  REQUIRE(got.size() == 2);
  const auto& samples = got[1].device_memory().sample();
  REQUIRE(samples.size() == 1);
  CHECK(samples[0].device() == 1);
  CHECK(samples[0].used_bytes() == 9ull << 30);
}

TEST_CASE("without NVML, why is written once and nothing is read") {
  Sampled s(FailingLoad);
  NoteUsedDevice(s.sampler, 0, 0);
  REQUIRE(s.put(1000));
  REQUIRE(s.put(1000 + kInterval, true));
  const auto got = s.packets();
  REQUIRE(got.size() == 1);
  CHECK(!got[0].device_memory_sampling().sampling());
  CHECK(got[0].device_memory_sampling().why_not() ==
        "libnvidia-ml.so.1: cannot open shared object file: No such file or directory");
}

TEST_CASE("an NVML that knows none of the GPUs used turns sampling off, naming one") {
  Sampled s(FakeLoad);
  NoteUsedDevice(s.sampler, 2, 9);
  REQUIRE(s.put(1000));
  REQUIRE(s.put(1000 + kInterval));
  const auto got = s.packets();
  REQUIRE(got.size() == 1);
  CHECK(!got[0].device_memory_sampling().sampling());
  CHECK(got[0].device_memory_sampling().why_not() ==
        "NVML knows none of the GPUs this process used (GPU-ab000000-0000-0000-0000-000000000009)");
  CHECK(g_queries == 0);
}

TEST_CASE("a forked child reads no GPU of its parent's") {
  Sampled s(FakeLoad);
  g_used["GPU-ab000000-0000-0000-0000-000000000000"] = 1ull << 30;
  NoteUsedDevice(s.sampler, 0, 0);
  s.sampler.ResetInChild();
  REQUIRE(s.put(1000, true));
  CHECK(s.packets().empty());
}
