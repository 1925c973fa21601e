// The fake libcupti.so.13's records of CUDA graphs built by stream capture on the fake runtime:
// per-node kernel and copy records with the graph's and node's ids, or, with GRAPH_TRACE, one
// GraphTrace2 record per replay and none per node. A process of its own: CUPTI state is
// process-wide.
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fake_cudart.h"
#include "monotonic_clock.h"
#include "test_cupti_client.h"

// Stand-in kernels, named through dladdr (the executable exports its symbols); noipa keeps the
// identical bodies apart.
extern "C" {
__attribute__((visibility("default"), noipa)) void graph_test_kernel_a(uint64_t) {}
__attribute__((visibility("default"), noipa)) void graph_test_kernel_b(uint64_t) {}
__attribute__((visibility("default"), noipa)) void graph_test_outside(uint64_t) {}
}

namespace {

using cupti_test::ClientClock;
using cupti_test::g_completed;
using cupti_test::RecordsOfKind;

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kADurationNs = 2 * kMs;
constexpr uint64_t kBDurationNs = 3 * kMs;
constexpr size_t kCopyBytes = 4096;

void Launch(void (*kernel)(uint64_t), uint64_t duration_ns, cudaStream_t stream) {
  void* args[] = {&duration_ns};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), args, 0,
                           stream) == cudaSuccess);
}

cudaGraphExec_t EndAndInstantiate(cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  return exec;
}

// Delivers every record so far and returns nothing: the next checks see only later records.
void Flush() { REQUIRE(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) == CUPTI_SUCCESS); }

std::vector<CUpti_ActivityKernel10> Kernels() {
  return RecordsOfKind<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

std::vector<CUpti_ActivityKernel10> KernelsNamed(const std::string& name) {
  std::vector<CUpti_ActivityKernel10> out;
  for (const auto& k : Kernels()) {
    if (k.name != nullptr && name == k.name) out.push_back(k);
  }
  return out;
}

std::vector<CUpti_ActivityAPI> ApiCalls() {
  return RecordsOfKind<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
}

std::vector<CUpti_ActivityGraphTrace2> Replays() {
  return RecordsOfKind<CUpti_ActivityGraphTrace2>(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
}

std::vector<CUpti_ActivityMemcpy6> Copies() {
  return RecordsOfKind<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
}

// The records of one launch's work: its correlation id.
template <typename Record>
std::vector<Record> WithCorrelation(const std::vector<Record>& records, uint32_t correlation_id) {
  std::vector<Record> out;
  for (const Record& r : records) {
    if (r.correlationId == correlation_id) out.push_back(r);
  }
  return out;
}

std::vector<CUpti_ActivityKernel10> KernelsOf(uint32_t correlation_id) {
  return WithCorrelation(Kernels(), correlation_id);
}

std::vector<CUpti_ActivityMemcpy6> CopiesOf(uint32_t correlation_id) {
  return WithCorrelation(Copies(), correlation_id);
}

std::vector<CUpti_ActivityGraphTrace2> ReplaysOf(uint32_t correlation_id) {
  return WithCorrelation(Replays(), correlation_id);
}

// A kernel that holds its stream until Open(): work queued behind it is queued, not run, however
// long the test takes in between.
class Gate {
 public:
  explicit Gate(cudaStream_t stream) {
    REQUIRE(fake_cudart::EnqueueKernel(stream, "gate", [this] {
              while (!open_.load()) std::this_thread::yield();
            }) == cudaSuccess);
  }
  void Open() { open_.store(true); }

 private:
  std::atomic<bool> open_{false};
};

}  // namespace

// Catch2 runs the case once per SECTION, from the top: each run captures its graphs anew.
TEST_CASE("fake CUPTI records graph nodes, or with GRAPH_TRACE whole replays, at launch") {
  g_completed.clear();
  REQUIRE(cuptiActivityRegisterCallbacks(cupti_test::BufferRequested,
                                         cupti_test::BufferCompleted) == CUPTI_SUCCESS);
  REQUIRE(cuptiActivityRegisterTimestampCallback(ClientClock) == CUPTI_SUCCESS);
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_RUNTIME}) {
    REQUIRE(cuptiActivityEnable(kind) == CUPTI_SUCCESS);
  }
  cudaStream_t stream, other;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&other) == cudaSuccess);
  std::vector<char> src(kCopyBytes, 'g'), dst(kCopyBytes, 0);

  // The graph: kernel a, a copy, kernel b. A second graph: kernel a alone.
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  Launch(graph_test_kernel_a, kADurationNs, stream);
  REQUIRE(cudaMemcpyAsync(dst.data(), src.data(), kCopyBytes, cudaMemcpyDefault, stream) ==
          cudaSuccess);
  Launch(graph_test_kernel_b, kBDurationNs, stream);
  const cudaGraphExec_t exec = EndAndInstantiate(stream);
  REQUIRE(cudaStreamBeginCapture(other, cudaStreamCaptureModeGlobal) == cudaSuccess);
  Launch(graph_test_kernel_a, kMs, other);
  const cudaGraphExec_t exec2 = EndAndInstantiate(other);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  Flush();
  // Capturing ran nothing: each captured call has its RUNTIME record and no activity.
  {
    const auto calls = ApiCalls();
    REQUIRE(calls.size() == 5);
    const uint32_t expected[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    };
    for (size_t i = 0; i < calls.size(); ++i) CHECK(calls[i].cbid == expected[i]);
    CHECK(Kernels().empty());
    CHECK(Copies().empty());
    CHECK(dst[0] == 0);
  }

  SECTION("without GRAPH_TRACE each node has its records, with the graph's and node's ids") {
    g_completed.clear();
    const uint64_t before_ns = ClientClock();
    Launch(graph_test_outside, kMs, stream);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec2, other) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    Flush();
    CHECK(dst == src);

    const auto calls = ApiCalls();
    REQUIRE(calls.size() == 5);
    CHECK(calls[0].cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    for (size_t i = 1; i <= 3; ++i) {
      CHECK(calls[i].cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
    }
    const auto outside = KernelsNamed("graph_test_outside");
    REQUIRE(outside.size() == 1);
    CHECK(outside[0].graphId == 0);
    CHECK(outside[0].graphNodeId == 0);
    CHECK(outside[0].correlationId == calls[0].correlationId);

    // Records arrive as streams complete work: each replay's are found by their launch's
    // correlation id, which its RUNTIME record carries, in node order.
    REQUIRE(Kernels().size() == 6);
    std::vector<CUpti_ActivityKernel10> a, b;
    std::vector<CUpti_ActivityMemcpy6> copies;
    for (size_t replay = 0; replay < 2; ++replay) {
      const auto nodes = KernelsOf(calls[1 + replay].correlationId);
      REQUIRE(nodes.size() == 2);
      REQUIRE(nodes[0].name != nullptr);
      REQUIRE(nodes[1].name != nullptr);
      CHECK(std::string(nodes[0].name) == "graph_test_kernel_a");
      CHECK(std::string(nodes[1].name) == "graph_test_kernel_b");
      a.push_back(nodes[0]);
      b.push_back(nodes[1]);
      const auto copied = CopiesOf(calls[1 + replay].correlationId);
      REQUIRE(copied.size() == 1);
      copies.push_back(copied[0]);
    }
    const uint32_t graph_id = a[0].graphId;
    CHECK(graph_id != 0);
    for (size_t replay = 0; replay < 2; ++replay) {
      INFO("replay " << replay);
      CHECK(a[replay].graphId == graph_id);
      CHECK(b[replay].graphId == graph_id);
      // Each node has its id, the same in every replay.
      CHECK(a[replay].graphNodeId != 0);
      CHECK(b[replay].graphNodeId != 0);
      CHECK(a[replay].graphNodeId != b[replay].graphNodeId);
      CHECK(a[replay].graphNodeId == a[0].graphNodeId);
      CHECK(b[replay].graphNodeId == b[0].graphNodeId);
      CHECK(a[replay].end - a[replay].start == kADurationNs);
      CHECK(b[replay].end - b[replay].start == kBDurationNs);
      CHECK(a[replay].start >= before_ns);  // on the client's clock
      CHECK(a[replay].streamId == outside[0].streamId);
      CHECK(b[replay].streamId == outside[0].streamId);
      CHECK(b[replay].start >= a[replay].end);

      CHECK(copies[replay].graphId == graph_id);
      CHECK(copies[replay].graphNodeId != 0);
      CHECK(copies[replay].graphNodeId != a[0].graphNodeId);
      CHECK(copies[replay].graphNodeId != b[0].graphNodeId);
      CHECK(copies[replay].graphNodeId == copies[0].graphNodeId);
      CHECK(copies[replay].bytes == kCopyBytes);
      CHECK(copies[replay].start >= a[replay].end);
      CHECK(copies[replay].end <= b[replay].start);
    }
    CHECK(Copies().size() == 2);
    CHECK(a[0].start >= outside[0].end);
    CHECK(a[1].start >= b[0].end);
    // The second graph has an id and a node of its own.
    const auto second = KernelsOf(calls[3].correlationId);
    REQUIRE(second.size() == 1);
    REQUIRE(second[0].name != nullptr);
    CHECK(std::string(second[0].name) == "graph_test_kernel_a");
    CHECK(second[0].graphId != 0);
    CHECK(second[0].graphId != graph_id);
    CHECK(second[0].graphNodeId != 0);
    CHECK(second[0].graphNodeId != a[0].graphNodeId);
    CHECK(second[0].graphNodeId != b[0].graphNodeId);
    CHECK(second[0].graphNodeId != copies[0].graphNodeId);
    CHECK(second[0].streamId != outside[0].streamId);
    CHECK(Replays().empty());
  }

  SECTION("with GRAPH_TRACE each replay has one record and its nodes none") {
    REQUIRE(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) == CUPTI_SUCCESS);
    g_completed.clear();
    const uint64_t before_ns = ClientClock();
    Launch(graph_test_outside, kMs, stream);
    for (int launch = 0; launch < 3; ++launch) {
      REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    }
    REQUIRE(cudaGraphLaunch(exec2, other) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const uint64_t after_ns = ClientClock();
    Flush();
    CHECK(dst == src);

    const auto calls = ApiCalls();
    REQUIRE(calls.size() == 6);
    const auto kernels = Kernels();
    REQUIRE(kernels.size() == 1);  // the kernel outside any graph still has its record
    REQUIRE(kernels[0].name != nullptr);
    CHECK(std::string(kernels[0].name) == "graph_test_outside");
    CHECK(kernels[0].graphId == 0);
    CHECK(kernels[0].correlationId == calls[0].correlationId);
    CHECK(Copies().empty());

    // One record per replay, found by its launch's correlation id.
    REQUIRE(Replays().size() == 4);
    std::vector<CUpti_ActivityGraphTrace2> replays;
    for (size_t i = 0; i < 4; ++i) {
      INFO("replay " << i);
      CHECK(calls[1 + i].cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
      const auto found = ReplaysOf(calls[1 + i].correlationId);
      REQUIRE(found.size() == 1);
      const CUpti_ActivityGraphTrace2& replay = found[0];
      CHECK(replay.kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
      CHECK(replay.deviceId == 0);
      CHECK(replay.endDeviceId == 0);
      CHECK(replay.contextId == replay.endContextId);
      CHECK(replay.start <= replay.end);
      // On the client's clock, between the launch and the synchronisation.
      CHECK(replay.start >= before_ns);
      CHECK(replay.end <= after_ns);
      CHECK(replay.start >= calls[1 + i].start);
      replays.push_back(replay);
    }
    for (size_t i = 0; i < 3; ++i) {
      INFO("replay " << i);
      CHECK(replays[i].graphId == replays[0].graphId);
      CHECK(replays[i].streamId == kernels[0].streamId);
      // From the first node's start to the last node's end: at least the kernels' durations.
      CHECK(replays[i].end - replays[i].start >= kADurationNs + kBDurationNs);
      CHECK(replays[i].start >= (i == 0 ? kernels[0].end : replays[i - 1].end));
    }
    CHECK(replays[0].graphId != 0);
    CHECK(replays[3].graphId != 0);
    CHECK(replays[3].graphId != replays[0].graphId);
    CHECK(replays[3].streamId != kernels[0].streamId);
    CHECK(replays[3].end - replays[3].start >= kMs);
    REQUIRE(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) == CUPTI_SUCCESS);
  }

  SECTION("whether a replay is recorded whole is decided when the graph is launched") {
    // Launched with GRAPH_TRACE off, run with it on: recorded node by node.
    g_completed.clear();
    auto gate = std::make_unique<Gate>(stream);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) == CUPTI_SUCCESS);
    gate->Open();
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    Flush();
    CHECK(KernelsNamed("graph_test_kernel_a").size() == 1);
    CHECK(KernelsNamed("graph_test_kernel_b").size() == 1);
    CHECK(Copies().size() == 1);
    CHECK(Replays().empty());

    // Launched with GRAPH_TRACE on, which is off when it runs: no record at all, as disabling a
    // kind stops the records of work that has not run yet.
    g_completed.clear();
    gate = std::make_unique<Gate>(stream);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) == CUPTI_SUCCESS);
    gate->Open();
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    Flush();
    CHECK(KernelsNamed("graph_test_kernel_a").empty());
    CHECK(KernelsNamed("graph_test_kernel_b").empty());
    CHECK(Copies().empty());
    CHECK(Replays().empty());
    CHECK(KernelsNamed("gate").size() == 1);  // work outside graphs is recorded as before
  }

  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(exec2) == cudaSuccess);
  cudaStreamDestroy(stream);
  cudaStreamDestroy(other);
}
