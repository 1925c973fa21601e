// A measurement probe, not part of vprof: a CUDA injection library
// (CUDA_INJECTION64_PATH) that enables the CUPTI activity kinds PROBE_KINDS
// names and counts the records CUPTI hands back, so that one workload can be
// timed with per-node kernel records, whole-graph records (GRAPH_TRACE), both,
// or none (what recording CUDA-graph replays whole saves). At exit it prints one
// line to stderr: the kinds, whether each enable succeeded, and the records
// counted per kind. libcupti is opened from PROBE_CUPTI (the program's own).
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/cupti_probe_buffers.h"

namespace {

using cupti_probe::FlushFn;
using cupti_probe::NextFn;
using cupti_probe::OnRequest;
using cupti_probe::RegisterFn;
using EnableFn = cupti_probe::EnableKindFn;

NextFn g_next = nullptr;
FlushFn g_flush = nullptr;
std::atomic<uint64_t> g_kernels{0}, g_graphs{0}, g_other{0};
std::string g_enabled;

void OnComplete(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (g_next(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      ++g_kernels;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE) {
      ++g_graphs;
    } else {
      ++g_other;
    }
  }
  std::free(buffer);
}

void AtExit() {
  if (g_flush) g_flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr,
               "graph_trace_probe kinds=%s kernel_records=%llu graph_records=%llu other=%llu\n",
               g_enabled.c_str(), static_cast<unsigned long long>(g_kernels.load()),
               static_cast<unsigned long long>(g_graphs.load()),
               static_cast<unsigned long long>(g_other.load()));
}

void Enable(EnableFn enable, CUpti_ActivityKind kind, const char* name) {
  const CUptiResult r = enable(kind);
  g_enabled += std::string(g_enabled.empty() ? "" : ",") + name +
               (r == CUPTI_SUCCESS ? ":ok" : ":error" + std::to_string(r));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* kinds = std::getenv("PROBE_KINDS");
  const char* path = std::getenv("PROBE_CUPTI");
  void* lib = dlopen(path ? path : "libcupti.so", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    std::fprintf(stderr, "graph_trace_probe: %s\n", dlerror());
    return 0;
  }
  auto enable = reinterpret_cast<EnableFn>(dlsym(lib, "cuptiActivityEnable"));
  auto reg = reinterpret_cast<RegisterFn>(dlsym(lib, "cuptiActivityRegisterCallbacks"));
  g_next = reinterpret_cast<NextFn>(dlsym(lib, "cuptiActivityGetNextRecord"));
  g_flush = reinterpret_cast<FlushFn>(dlsym(lib, "cuptiActivityFlushAll"));
  if (!enable || !reg || !g_next || !g_flush) return 0;
  reg(OnRequest, OnComplete);
  const std::string k = kinds ? kinds : "";
  if (k == "kernel" || k == "both")
    Enable(enable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL");
  if (k == "graph" || k == "both") Enable(enable, CUPTI_ACTIVITY_KIND_GRAPH_TRACE, "GRAPH_TRACE");
  if (g_enabled.empty()) g_enabled = "none";
  std::atexit(AtExit);
  return 1;
}
