// sim_train's --graph-opt, seen through the fake CUPTI: one rank of the simulated training job
// (libsim_model.so's sim_main) runs in this process, over the fake runtime, with CUPTI recording
// its kernels. With --graph-opt the optimizer's kernels are the same kernels, replayed from a
// graph once per step; with GRAPH_TRACE too, each replay is one record. A process of its own:
// CUPTI state is process-wide.
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_cupti_client.h"

extern "C" int sim_main(int argc, char** argv);

namespace {

using cupti_test::g_completed;
using cupti_test::RecordsOfKind;

constexpr int kSteps = 3;
constexpr int kLayers = 2;
constexpr int kOptKernels = 3;
constexpr uint64_t kFwdNs = 100'000;
constexpr uint64_t kBwdNs = 200'000;
constexpr uint64_t kOptNs = 150'000;

// One rank of 1, with small buckets and no weight broadcasts; optionally --graph-opt.
void RunSim(bool graph_opt) {
  std::vector<std::string> args = {"sim_train", "--bucket-elems", "1024", "--sync-every", "0"};
  const auto add = [&args](const char* option, uint64_t value) {
    args.push_back(option);
    args.push_back(std::to_string(value));
  };
  add("--steps", kSteps);
  add("--layers", kLayers);
  add("--opt-kernels", kOptKernels);
  add("--fwd-us", kFwdNs / 1000);
  add("--bwd-us", kBwdNs / 1000);
  add("--opt-us", kOptNs / 1000);
  if (graph_opt) args.push_back("--graph-opt");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  g_completed.clear();
  REQUIRE(sim_main(static_cast<int>(argv.size()), argv.data()) == 0);
  REQUIRE(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) == CUPTI_SUCCESS);
}

std::vector<CUpti_ActivityKernel10> Kernels() {
  return RecordsOfKind<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

// name -> {duration in ns -> count}
std::map<std::string, std::map<uint64_t, int>> KernelShapes() {
  std::map<std::string, std::map<uint64_t, int>> shapes;
  for (const auto& k : Kernels()) {
    REQUIRE(k.name != nullptr);
    ++shapes[k.name][k.end - k.start];
  }
  return shapes;
}

std::vector<CUpti_ActivityAPI> CallsOf(uint32_t cbid) {
  std::vector<CUpti_ActivityAPI> out;
  for (const auto& call : RecordsOfKind<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME)) {
    if (call.cbid == cbid) out.push_back(call);
  }
  return out;
}

uint32_t StreamOf(const std::string& name) {
  for (const auto& k : Kernels()) {
    if (k.name != nullptr && name == k.name) return k.streamId;
  }
  FAIL("no kernel " << name);
  return 0;
}

}  // namespace

TEST_CASE("sim_train --graph-opt replays the optimizer's kernels from one graph each step") {
  // A lone rank 0 of 1, whatever launched the test; the fake NCCL launches no kernels.
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS",
                           "SLURM_LOCALID", "VPROF_SIM_RDZV", "FAKE_NCCL_KERNELS"}) {
    unsetenv(name);
  }
  REQUIRE(cuptiActivityRegisterCallbacks(cupti_test::BufferRequested,
                                         cupti_test::BufferCompleted) == CUPTI_SUCCESS);
  REQUIRE(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS);
  REQUIRE(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) == CUPTI_SUCCESS);

  const std::map<std::string, std::map<uint64_t, int>> expected_shapes = {
      {"sim_fwd_kernel", {{kFwdNs, kSteps * kLayers}}},
      {"sim_bwd_kernel", {{kBwdNs, kSteps * kLayers}}},
      {"sim_opt_kernel", {{kOptNs, kSteps * kOptKernels}}},
  };

  // Without the option: every kernel launched one by one, none in a graph.
  RunSim(false);
  CHECK(KernelShapes() == expected_shapes);
  for (const auto& k : Kernels()) CHECK(k.graphId == 0);
  CHECK(CallsOf(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000).empty());
  CHECK(CallsOf(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000).size() ==
        kSteps * (2 * kLayers + kOptKernels));

  // With it: the same kernels, the optimizer's from one graph launched once per step on the
  // compute stream.
  RunSim(true);
  CHECK(KernelShapes() == expected_shapes);
  const auto launches = CallsOf(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
  REQUIRE(launches.size() == kSteps);
  // The optimizer's kernels are launched (captured) once, the others every step.
  CHECK(CallsOf(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000).size() ==
        kSteps * 2 * kLayers + kOptKernels);
  const uint32_t compute_stream = StreamOf("sim_fwd_kernel");
  std::set<uint32_t> graph_ids;
  std::set<uint64_t> first_nodes;
  for (int step = 0; step < kSteps; ++step) {
    INFO("step " << step);
    std::vector<uint64_t> nodes;
    for (const auto& k : Kernels()) {
      if (k.correlationId != launches[step].correlationId) continue;
      REQUIRE(k.name != nullptr);
      CHECK(std::string(k.name) == "sim_opt_kernel");
      CHECK(k.streamId == compute_stream);
      graph_ids.insert(k.graphId);
      nodes.push_back(k.graphNodeId);
    }
    CHECK(nodes.size() == kOptKernels);
    const std::set<uint64_t> distinct(nodes.begin(), nodes.end());
    CHECK(distinct.size() == kOptKernels);
    if (step == 0) first_nodes = distinct;
    CHECK(distinct == first_nodes);  // the same graph's nodes every step
  }
  REQUIRE(graph_ids.size() == 1);
  CHECK(*graph_ids.begin() != 0);
  for (const auto& k : Kernels()) {
    if (std::string(k.name) != "sim_opt_kernel") CHECK(k.graphId == 0);
  }

  // With GRAPH_TRACE: one record per step's replay, and no optimizer kernel records.
  REQUIRE(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) == CUPTI_SUCCESS);
  RunSim(true);
  auto without_opt = expected_shapes;
  without_opt.erase("sim_opt_kernel");
  CHECK(KernelShapes() == without_opt);
  const auto traced_launches = CallsOf(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
  const auto replays = RecordsOfKind<CUpti_ActivityGraphTrace2>(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
  REQUIRE(traced_launches.size() == kSteps);
  REQUIRE(replays.size() == kSteps);
  for (int step = 0; step < kSteps; ++step) {
    INFO("step " << step);
    CHECK(replays[step].correlationId == traced_launches[step].correlationId);
    CHECK(replays[step].graphId != 0);
    CHECK(replays[step].graphId == replays[0].graphId);
    CHECK(replays[step].streamId == StreamOf("sim_fwd_kernel"));
    CHECK(replays[step].end - replays[step].start >= kOptKernels * kOptNs);
  }
  // Outside graphs GRAPH_TRACE changes nothing.
  RunSim(false);
  CHECK(KernelShapes() == expected_shapes);
  CHECK(RecordsOfKind<CUpti_ActivityGraphTrace2>(CUPTI_ACTIVITY_KIND_GRAPH_TRACE).empty());
}
