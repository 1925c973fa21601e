#include "cupti/api_selection.h"

#include <cupti.h>

namespace vprof {
namespace {

// A name is selected when it holds `fragment` and not `unless`.
struct ApiRule {
  std::string_view fragment;
  std::string_view unless;
};
constexpr ApiRule kSelectedApis[] = {
    {"Launch", ""},
    {"Memcpy", "Graph"},
    {"Memset", "Graph"},
    {"EventRecord", "Graph"},
    {"StreamWaitEvent", ""},
    {"Synchronize", ""},
    {"Ipc", ""},
    {"ProfilerStart", ""},
    {"ProfilerStop", ""},
    // Device-memory allocation, for the time a step spends in it: cudaMalloc*, cudaFree*,
    // cuMemAlloc*, cuMemFree*, and the virtual-memory calls memory savers use.
    {"Malloc", ""},
    {"Free", ""},
    {"cuMemAlloc", ""},
    {"cuMemCreate", ""},
    {"cuMemRelease", ""},
    {"cuMemMap", ""},
    {"cuMemUnmap", ""},
};

using EnableApiFn = CUptiResult(CUPTIAPI*)(CUpti_CallbackId, uint8_t);

uint32_t EnableDomain(const CuptiLibrary& cupti, CUpti_CallbackDomain domain, uint32_t size,
                      EnableApiFn enable, bool on, std::string* error) {
  uint32_t enabled = 0;
  for (uint32_t cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (cupti.cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name) continue;
    if (!IsSelectedApi(name)) continue;
    const CUptiResult r = enable(cbid, on ? 1 : 0);
    if (r == CUPTI_SUCCESS) {
      ++enabled;
    } else if (error->empty()) {
      *error = std::string(on ? "enabling" : "disabling") + " the record of " + name +
               ": CUPTI error " + std::to_string(static_cast<int>(r));
    }
  }
  return enabled;
}

}  // namespace

bool IsSelectedApi(std::string_view callback_name) {
  for (const ApiRule& rule : kSelectedApis) {
    if (callback_name.find(rule.fragment) == std::string_view::npos) continue;
    if (!rule.unless.empty() && callback_name.find(rule.unless) != std::string_view::npos) continue;
    return true;
  }
  return false;
}

ApiSelection EnableSelectedApis(const CuptiLibrary& cupti, bool on) {
  ApiSelection selection;
  selection.runtime =
      EnableDomain(cupti, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE,
                   cupti.cuptiActivityEnableRuntimeApi, on, &selection.error);
  selection.driver = EnableDomain(cupti, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
                                  cupti.cuptiActivityEnableDriverApi, on, &selection.error);
  return selection;
}

}  // namespace vprof
