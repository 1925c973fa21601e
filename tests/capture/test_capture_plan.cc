// VPROF_CUPTI_KINDS read into a capture plan: the light default, full capture, lists, and bad
// values (one error naming the variable, the light plan kept).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "capture/cupti/capture_plan.h"

namespace {

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
    std::string error;
    const vprof::CapturePlan plan = vprof::PlanCapture(setting, &error);
    CHECK(error.empty());
    CHECK(kind_names(plan) == kLightKinds);
    CHECK(plan.api_records == vprof::ApiRecords::kSelected);
    CHECK(plan.mode == "light");
  }
}

TEST_CASE("'all' enables every kind, RUNTIME and DRIVER included, and graphs node by node") {
  std::string error;
  const vprof::CapturePlan plan = vprof::PlanCapture("all", &error);
  CHECK(error.empty());
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "MEMCPY", "MEMCPY2",
                                                     "MEMSET", "SYNCHRONIZATION", "CUDA_EVENT",
                                                     "RUNTIME", "DRIVER", "EXTERNAL_CORRELATION",
                                                     "OVERHEAD", "DEVICE", "MEMORY2"});
  CHECK(plan.api_records == vprof::ApiRecords::kAll);
  CHECK(plan.mode == "all");
}

TEST_CASE("a list names kinds in any case and order, with spaces; SELECTED_API adds API records") {
  std::string error;
  vprof::CapturePlan plan = vprof::PlanCapture(" memset , concurrent_kernel ", &error);
  CHECK(error.empty());
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "MEMSET"});
  CHECK(plan.api_records == vprof::ApiRecords::kNone);
  CHECK(plan.mode == "memset , concurrent_kernel");

  plan = vprof::PlanCapture("CONCURRENT_KERNEL,SELECTED_API,CONCURRENT_KERNEL", &error);
  CHECK(error.empty());
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL"});
  CHECK(plan.api_records == vprof::ApiRecords::kSelected);

  plan = vprof::PlanCapture("DRIVER,CONCURRENT_KERNEL", &error);
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "DRIVER"});
  CHECK(plan.api_records == vprof::ApiRecords::kAll);
}

TEST_CASE("in a list, 'light' is the light plan: 'light,MEMORY2' adds device memory to it") {
  std::string error;
  vprof::CapturePlan plan = vprof::PlanCapture("light, memory2", &error);
  CHECK(error.empty());
  std::vector<std::string> expected = kLightKinds;
  expected.push_back("MEMORY2");
  CHECK(kind_names(plan) == expected);
  CHECK(plan.api_records == vprof::ApiRecords::kSelected);
  CHECK(plan.mode == "light, memory2");
  // With a kind that records every API call, all API calls are recorded.
  plan = vprof::PlanCapture("RUNTIME,light", &error);
  CHECK(plan.api_records == vprof::ApiRecords::kAll);
}

TEST_CASE("an unknown or empty name keeps the light plan and names the variable and the choices") {
  for (const char* setting : {"CONCURRENT_KERNEL,BOGUS", "CONCURRENT_KERNEL,", "ful"}) {
    std::string error;
    const vprof::CapturePlan plan = vprof::PlanCapture(setting, &error);
    CHECK(kind_names(plan) == kLightKinds);
    CHECK(plan.api_records == vprof::ApiRecords::kSelected);
    CHECK(error.find("VPROF_CUPTI_KINDS='" + std::string(setting) + "'") == 0);
    CHECK(error.find("light, all, or a comma-separated list of light, CONCURRENT_KERNEL") !=
          std::string::npos);
    CHECK(error.find("using the light default") != std::string::npos);
  }
}

TEST_CASE("deep windows record each node of a graph: RecordGraphNodes drops GRAPH_TRACE") {
  std::string error;
  vprof::CapturePlan plan = vprof::PlanCapture("light", &error);
  vprof::RecordGraphNodes(&plan);
  std::vector<std::string> expected = kLightKinds;
  std::erase(expected, "GRAPH_TRACE");
  CHECK(kind_names(plan) == expected);
  // Named in a list, it is the one kind the list has; dropped, none is left.
  plan = vprof::PlanCapture("graph_trace", &error);
  CHECK(error.empty());
  CHECK(kind_names(plan) == std::vector<std::string>{"GRAPH_TRACE"});
  vprof::RecordGraphNodes(&plan);
  CHECK(plan.kinds.empty());
}

TEST_CASE("a libcupti that cannot select APIs gets the RUNTIME and DRIVER kinds, once") {
  std::string error;
  vprof::CapturePlan plan = vprof::PlanCapture("", &error);
  vprof::RecordEveryApi(&plan);
  std::vector<std::string> expected = kLightKinds;
  expected.insert(expected.end(), {"RUNTIME", "DRIVER"});
  CHECK(kind_names(plan) == expected);
  CHECK(plan.api_records == vprof::ApiRecords::kAll);

  plan = vprof::PlanCapture("CONCURRENT_KERNEL,DRIVER,SELECTED_API", &error);
  vprof::RecordEveryApi(&plan);
  CHECK(kind_names(plan) == std::vector<std::string>{"CONCURRENT_KERNEL", "DRIVER", "RUNTIME"});
}
