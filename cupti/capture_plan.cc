#include "cupti/capture_plan.h"

#include <algorithm>

namespace vprof {
namespace {

// CUPTI's kind of each row of gpu_kinds.def, in its order (the reasons for
// each row's place in the light default are there).
constexpr ActivityKind kCuptiKinds[] = {
#define VPROF_GPU_KIND(name, light, all) {CUPTI_ACTIVITY_KIND_##name, #name},
#include "common/gpu_kinds.def"
#undef VPROF_GPU_KIND
};
static_assert(std::size(kCuptiKinds) == kGpuKindCount);

bool IsGraphTrace(const ActivityKind& k) { return k.kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE; }

}  // namespace

bool RecordsApiCalls(CUpti_ActivityKind kind) {
  return kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER;
}

void RecordGraphNodes(CapturePlan* plan) { std::erase_if(plan->kinds, IsGraphTrace); }

bool RecordsGraphsWhole(const CapturePlan& plan) {
  return std::ranges::any_of(plan.kinds, IsGraphTrace);
}

void RecordEveryApi(CapturePlan* plan) {
  for (const ActivityKind& k : kCuptiKinds) {
    if (!RecordsApiCalls(k.kind)) continue;
    bool present = false;
    for (const ActivityKind& had : plan->kinds) present = present || had.kind == k.kind;
    if (!present) plan->kinds.push_back(k);
  }
  plan->api_records = ApiRecords::kAll;
}

CapturePlan PlanCapture(const GpuKinds& kinds) {
  CapturePlan plan;
  for (size_t i = 0; i < kGpuKindCount; ++i) {
    if (kinds.kinds.test(i)) plan.kinds.push_back(kCuptiKinds[i]);
  }
  plan.api_records = kinds.api_records;
  plan.mode = kinds.mode;
  return plan;
}

}  // namespace vprof
