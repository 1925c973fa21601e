#include "capture/cupti/capture_plan.h"

#include <algorithm>
#include <cctype>

namespace vprof {
namespace {

// Every kind vprof can enable, in enable order, and whether the light plan
// and the "all" plan have it. CONCURRENT_KERNEL rather than KERNEL: it does
// not serialise kernels.
// CUDA_EVENT and SYNCHRONIZATION give the stream/event plan (which stream
// waits on which record) without a callback subscription; the light plan
// leaves them out: PyTorch's caching allocator records and queries events all
// the time, and on an H100 these two kinds cost a host-bound Llama step more
// than every other kind together (bench/RESULTS.md, 2026-12-02 (b5f56da)). Only
// the stream-wait edges and sync totals need them, and the report says so. MEMCPY2: copies
// between two GPUs, which CUPTI reports under this kind only, never as MEMCPY.
// DEVICE: one record per GPU (its UUID), written when the kind is enabled.
// MEMORY2: device-memory allocations and releases. Not light: on one H200 it
// took a host-bound Llama step from 19.6 to 27.3 ms (medians of 5 interleaved
// rounds, bench/RESULTS.md, 2026-12-03 (6c47385)), although PyTorch's caching
// allocator calls cudaMalloc only to grow. "light,MEMORY2" asks for it.
// RUNTIME and DRIVER record every API call; the light plan has its selection
// instead. GRAPH_TRACE: one record per CUDA-graph replay, and then CUPTI writes
// none of the graph's nodes (kernels outside graphs are still recorded). On
// one H200 per-node kernel records cost a graph replay loop x1.053 on the GPU
// itself, whole replays x1.000 (bench/RESULTS.md, 2026-12-04 (6e3c8e8)), so
// the light plan records replays whole; "all" and deep windows record each
// node.
struct KnownKind {
  ActivityKind kind;
  bool light;
  bool all = true;  // in the "all" plan
};
constexpr KnownKind kKinds[] = {
    {{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"}, true},
    {{CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"}, true},
    {{CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2"}, true},
    {{CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"}, true},
    {{CUPTI_ACTIVITY_KIND_GRAPH_TRACE, "GRAPH_TRACE"}, true, false},
    {{CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"}, false},
    {{CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT"}, false},
    {{CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"}, false},
    {{CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"}, false},
    {{CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION"}, true},
    {{CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD"}, true},
    {{CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE"}, true},
    {{CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2"}, false},
};
constexpr std::string_view kSelectedApi = "SELECTED_API";

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

CapturePlan LightPlan() {
  CapturePlan plan;
  for (const KnownKind& k : kKinds) {
    if (k.light) plan.kinds.push_back(k.kind);
  }
  plan.api_records = ApiRecords::kSelected;
  plan.mode = "light";
  return plan;
}

CapturePlan FullPlan() {
  CapturePlan plan;
  for (const KnownKind& k : kKinds) {
    if (k.all) plan.kinds.push_back(k.kind);
  }
  plan.api_records = ApiRecords::kAll;
  plan.mode = "all";
  return plan;
}

std::string ExpectedNames() {
  std::string names = "light, all, or a comma-separated list of light, ";
  for (const KnownKind& k : kKinds) names += std::string(k.kind.name) + ", ";
  return names + std::string(kSelectedApi);
}

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
  for (const KnownKind& k : kKinds) {
    if (!RecordsApiCalls(k.kind.kind)) continue;
    bool present = false;
    for (const ActivityKind& had : plan->kinds) present = present || had.kind == k.kind.kind;
    if (!present) plan->kinds.push_back(k.kind);
  }
  plan->api_records = ApiRecords::kAll;
}

CapturePlan PlanCapture(std::string_view setting, std::string* error) {
  const std::string_view whole = Trimmed(setting);
  if (whole.empty() || SameName(whole, "light")) return LightPlan();
  if (SameName(whole, "all")) return FullPlan();

  std::vector<std::string_view> names;
  for (size_t start = 0; start <= whole.size();) {
    size_t comma = whole.find(',', start);
    if (comma == std::string_view::npos) comma = whole.size();
    names.push_back(Trimmed(whole.substr(start, comma - start)));
    start = comma + 1;
  }
  CapturePlan plan;
  plan.mode = std::string(whole);
  // In a list, "light" stands for the light plan's kinds and SELECTED_API, so
  // that "light,MEMORY2" adds a kind to the default.
  bool light = false;
  for (std::string_view name : names) {
    bool known = SameName(name, kSelectedApi) || SameName(name, "light");
    for (const KnownKind& k : kKinds) known = known || SameName(name, k.kind.name);
    if (!known) {
      *error = "VPROF_CUPTI_KINDS='" + std::string(setting) + "': '" + std::string(name) +
               "' is not one of " + ExpectedNames() + "; using the light default";
      return LightPlan();
    }
    light = light || SameName(name, "light");
    if (SameName(name, kSelectedApi) || SameName(name, "light")) {
      plan.api_records = ApiRecords::kSelected;
    }
  }
  for (const KnownKind& k : kKinds) {
    bool named = light && k.light;
    for (std::string_view name : names) named = named || SameName(name, k.kind.name);
    if (!named) continue;
    plan.kinds.push_back(k.kind);
    if (RecordsApiCalls(k.kind.kind)) plan.api_records = ApiRecords::kAll;
  }
  return plan;
}

}  // namespace vprof
