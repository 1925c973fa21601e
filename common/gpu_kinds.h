// VPROF_CUPTI_KINDS as a typed value: which kinds of GPU activity to record
// (gpu_kinds.def) and which CUDA API calls get records. Parsed once, with
// every other setting (settings.h); GPU capture maps it to CUPTI's kinds
// (cupti/capture_plan.h).
#pragma once

#include <bitset>
#include <cstddef>
#include <string>
#include <string_view>

namespace vprof {

enum class GpuKind : uint8_t {
#define VPROF_GPU_KIND(name, light, all) k##name,
#include "common/gpu_kinds.def"
#undef VPROF_GPU_KIND
};

inline constexpr size_t kGpuKindCount = 0
#define VPROF_GPU_KIND(name, light, all) +1
#include "common/gpu_kinds.def"
#undef VPROF_GPU_KIND
    ;

// kSelected: only the calls the report's analyses read (api_selection.h).
enum class ApiRecords : uint8_t { kNone, kSelected, kAll };

struct GpuKinds {
  std::bitset<kGpuKindCount> kinds;  // by GpuKind
  ApiRecords api_records = ApiRecords::kSelected;
  // As the trace's GpuCaptureStatus names it: "light", "all", or the list as
  // given (spaces at its ends trimmed).
  std::string mode;

  bool Has(GpuKind k) const { return kinds.test(static_cast<size_t>(k)); }
};

// The light default: what the report reads and nothing else.
GpuKinds LightGpuKinds();

// "" or "light": the light default; "all": every kind whose row says so, with
// every API call recorded; otherwise a comma-separated list of kind names (any
// case, spaces ignored), where "light" stands for the light default's kinds
// and SELECTED_API for its API records, and RUNTIME or DRIVER record every
// call. False for an unknown or empty name.
bool ParseGpuKinds(std::string_view setting, GpuKinds* out);

// What ParseGpuKinds accepts, for the error that names the variable.
std::string GpuKindsExpected();

}  // namespace vprof
