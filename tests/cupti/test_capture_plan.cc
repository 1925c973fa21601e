// VPROF_CUPTI_KINDS parsed (gpu_kinds.h) and mapped to CUPTI's kinds: the light default, full
// capture, lists, and bad values (refused; settings.cc names the variable).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cupti/capture_plan.h"

namespace {

// The plan of a setting that parses.
vprof::CapturePlan PlanOf(const char* setting) {
  vprof::GpuKinds kinds;
  REQUIRE(vprof::ParseGpuKinds(setting, &kinds));
  return vprof::PlanCapture(kinds);
}

std::vector<std::string> kind_names(const vprof::CapturePlan& plan) {
  std::vector<std::string> names;
  for (const vprof::ActivityKind& k : plan.kinds) names.emplace_back(k.name);
  return names;
}

// What the report reads: work on the GPU (CUDA-graph replays whole), NCCL correlation, CUPTI's
// own overhead and the GPUs, with selected API records instead of the RUNTIME and DRIVER kinds;
// not the stream/event plan (SYNCHRONIZATION, CUDA_EVENT), which costs PyTorch's steps the most.
const std::vector<std::string> kLightKinds = {
    "CONCURRENT_KERNEL",    "MEMCPY",   "MEMCPY2", "MEMSET", "GRAPH_TRACE",
    "EXTERNAL_CORRELATION", "OVERHEAD", "DEVICE"};

}  // namespace

TEST_CASE("unset, empty and 'light' give the light plan with selected API records") {
  for (const char* setting : {"", "light", " LIGHT "}) {
    const vprof::CapturePlan plan = PlanOf(setting);
    CHECK(kind_names(plan) == kLightKinds);
    CHECK(plan.api_records == vprof::ApiRecords::kSelected);
    CHECK(plan.mode == "light");
  }
}

TEST_CASE("'all' enables every kind, RUNTIME and DRIVER included, and graphs node by node") {
  const vprof::CapturePlan plan = PlanOf("all");
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "MEMCPY", "MEMCPY2",
                                                     "MEMSET", "SYNCHRONIZATION", "CUDA_EVENT",
                                                     "RUNTIME", "DRIVER", "EXTERNAL_CORRELATION",
                                                     "OVERHEAD", "DEVICE", "MEMORY2"});
  CHECK(plan.api_records == vprof::ApiRecords::kAll);
  CHECK(plan.mode == "all");
}

TEST_CASE("a list names kinds in any case and order, with spaces; SELECTED_API adds API records") {
  vprof::CapturePlan plan = PlanOf(" memset , concurrent_kernel ");
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "MEMSET"});
  CHECK(plan.api_records == vprof::ApiRecords::kNone);
  CHECK(plan.mode == "memset , concurrent_kernel");

  plan = PlanOf("CONCURRENT_KERNEL,SELECTED_API,CONCURRENT_KERNEL");
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL"});
  CHECK(plan.api_records == vprof::ApiRecords::kSelected);

  plan = PlanOf("DRIVER,CONCURRENT_KERNEL");
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "DRIVER"});
  CHECK(plan.api_records == vprof::ApiRecords::kAll);
}

TEST_CASE("in a list, 'light' is the light plan: 'light,MEMORY2' adds device memory to it") {
  vprof::CapturePlan plan = PlanOf("light, memory2");
  std::vector<std::string> expected = kLightKinds;
  expected.push_back("MEMORY2");
  CHECK(kind_names(plan) == expected);
  CHECK(plan.api_records == vprof::ApiRecords::kSelected);
  CHECK(plan.mode == "light, memory2");
  // With a kind that records every API call, all API calls are recorded.
  plan = PlanOf("RUNTIME,light");
  CHECK(plan.api_records == vprof::ApiRecords::kAll);
}

TEST_CASE("an unknown or empty name is refused, and the choices name every kind") {
  for (const char* setting : {"CONCURRENT_KERNEL,BOGUS", "CONCURRENT_KERNEL,", "ful", ","}) {
    INFO(setting);
    vprof::GpuKinds kinds;
    CHECK_FALSE(vprof::ParseGpuKinds(setting, &kinds));
  }
  CHECK(vprof::GpuKindsExpected() ==
        "light, all, or a comma-separated list of light, CONCURRENT_KERNEL, MEMCPY, MEMCPY2, "
        "MEMSET, GRAPH_TRACE, SYNCHRONIZATION, CUDA_EVENT, RUNTIME, DRIVER, "
        "EXTERNAL_CORRELATION, OVERHEAD, DEVICE, MEMORY2, SELECTED_API");
}

TEST_CASE("deep windows record each node of a graph: RecordGraphNodes drops GRAPH_TRACE") {
  vprof::CapturePlan plan = PlanOf("light");
  vprof::RecordGraphNodes(&plan);
  std::vector<std::string> expected = kLightKinds;
  std::erase(expected, "GRAPH_TRACE");
  CHECK(kind_names(plan) == expected);
  // Named in a list, it is the one kind the list has; dropped, none is left.
  plan = PlanOf("graph_trace");
  CHECK(kind_names(plan) == std::vector<std::string>{"GRAPH_TRACE"});
  vprof::RecordGraphNodes(&plan);
  CHECK(plan.kinds.empty());
}

TEST_CASE("a libcupti that cannot select APIs gets the RUNTIME and DRIVER kinds, once") {
  vprof::CapturePlan plan = PlanOf("");
  vprof::RecordEveryApi(&plan);
  std::vector<std::string> expected = kLightKinds;
  expected.insert(expected.end(), {"RUNTIME", "DRIVER"});
  CHECK(kind_names(plan) == expected);
  CHECK(plan.api_records == vprof::ApiRecords::kAll);

  plan = PlanOf("CONCURRENT_KERNEL,DRIVER,SELECTED_API");
  vprof::RecordEveryApi(&plan);
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "DRIVER", "RUNTIME"});
}
