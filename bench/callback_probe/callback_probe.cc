// A measurement probe, not part of vprof: a CUDA injection library
// (CUDA_INJECTION64_PATH) that prices the other way of recording the light
// plan's API calls (for always-on capture between deep windows). vprof
// has CUPTI write activity records of the selected APIs for the whole
// run, because switching them with the windows crashed CUPTI; the other way
// is CUPTI's callback API on the same APIs, enabled once, with a callback
// that returns at once while no window is open and records the call itself
// inside one. PROBE_CALLBACKS picks what this process does:
//   idle      the callbacks of the selected APIs, no window ever open: the
//             cost between windows of the callback way;
//   record    the same callbacks recording every call (two CLOCK_MONOTONIC
//             reads and a fixed-size record into a thread's own array, as a
//             hot path of vprof would, plus one relaxed atomic OR to note the
//             correlation id), and kernel records: the cost inside a window,
//             and whether each kernel's correlation id is one a callback saw;
//   activity  CUPTI's activity records of the selected APIs and kernel
//             records (the light plan's way), the same match made from them;
//   kernels   kernel records alone;
//   toggle    record's callbacks, switched on and off every PROBE_TOGGLE_MS
//             milliseconds (default 10) by a thread of the probe's, as deep
//             windows would switch them, and kernel records: does switching
//             callbacks while the program launches crash CUPTI, as switching
//             the same APIs' activity records did (bench/RESULTS.md, 2026-12-04 (a36dbc4))?
//             A crash prints "callback_probe_crash", the faulting address,
//             whether a switch was under way and on which thread, and the
//             native backtrace, so that it can be told to be CUPTI's.
// At exit it prints one line to stderr: the mode, the APIs enabled in each
// domain and the first refusal, the calls recorded, the kernels, and the
// kernels whose correlation id was seen. libcupti is opened from
// PROBE_CUPTI (the program's own). The selection is vprof's (IsSelectedApi).
#include <cupti.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "bench/cupti_probe_buffers.h"
#include "cupti/api_selection.h"

namespace {

using SubscribeFn = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
using EnableCallbackFn = CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId);
using NameFn = CUptiResult (*)(CUpti_CallbackDomain, uint32_t, const char**);
using EnableApiFn = CUptiResult (*)(CUpti_CallbackId, uint8_t);
using cupti_probe::EnableKindFn;
using cupti_probe::FlushFn;
using cupti_probe::NextFn;
using cupti_probe::OnRequest;
using cupti_probe::RegisterFn;

NextFn g_next = nullptr;
FlushFn g_flush = nullptr;
std::string g_mode;
std::string g_enabled;  // "runtime=N driver=N" and the first refusal
// record: false in idle, so every callback returns after this one load.
std::atomic<bool> g_window_open{false};

// Correlation ids seen in a callback (record) or an API record (activity),
// one bit each; ids at or above kIdBits are counted apart.
constexpr uint32_t kIdBits = 1u << 26;
std::atomic<uint64_t>* g_seen = nullptr;
std::atomic<uint64_t> g_api_calls{0}, g_ids_too_large{0};
std::mutex g_kernel_ids_lock;  // the completion callback's, not the API calls'
// toggle: the callbacks the switching thread turns on and off, its count of
// switches, and the exit handler's request that it stop (it answers by
// clearing g_switching, so that exit does not race a switch under way).
std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> g_selected;
std::atomic<uint64_t> g_switches{0}, g_switch_refusals{0};
std::atomic<bool> g_stop_switching{false}, g_switching{false};
std::atomic<bool> g_in_switch{false};     // the switching thread is inside cuptiEnableCallback
thread_local bool t_is_switcher = false;  // this thread is the switching thread
std::vector<uint32_t> g_kernel_ids;

struct CallRecord {
  uint64_t start_ns, end_ns;
  uint32_t correlation_id, cbid;
};
constexpr size_t kThreadRecords = 4096;
thread_local CallRecord t_records[kThreadRecords];
thread_local size_t t_next = 0;
thread_local uint64_t t_enter_ns[2];  // by domain: a runtime call holds a driver call

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void NoteId(uint32_t id) {
  if (id >= kIdBits) {
    g_ids_too_large.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  g_seen[id / 64].fetch_or(uint64_t{1} << (id % 64), std::memory_order_relaxed);
}

void CUPTIAPI OnApi(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (!g_window_open.load(std::memory_order_relaxed)) return;
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  const int d = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? 0 : 1;
  if (call->callbackSite == CUPTI_API_ENTER) {
    t_enter_ns[d] = MonotonicNs();
    return;
  }
  t_records[t_next++ % kThreadRecords] = {t_enter_ns[d], MonotonicNs(), call->correlationId, cbid};
  NoteId(call->correlationId);
  g_api_calls.fetch_add(1, std::memory_order_relaxed);
}

void OnComplete(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::vector<uint32_t> kernels;
  while (g_next(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      kernels.push_back(reinterpret_cast<CUpti_ActivityKernel10*>(record)->correlationId);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
               record->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
      NoteId(reinterpret_cast<CUpti_ActivityAPI*>(record)->correlationId);
      g_api_calls.fetch_add(1, std::memory_order_relaxed);
    }
  }
  std::free(buffer);
  const std::lock_guard<std::mutex> lock(g_kernel_ids_lock);
  g_kernel_ids.insert(g_kernel_ids.end(), kernels.begin(), kernels.end());
}

void AtExit() {
  g_stop_switching.store(true);
  for (int i = 0; i < 1000 && g_switching.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (g_flush) g_flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const std::lock_guard<std::mutex> lock(g_kernel_ids_lock);
  size_t matched = 0;
  for (uint32_t id : g_kernel_ids) {
    if (id < kIdBits && (g_seen[id / 64].load() >> (id % 64) & 1)) ++matched;
  }
  std::fprintf(stderr,
               "callback_probe mode=%s %s api_calls=%llu ids_too_large=%llu kernels=%zu "
               "kernels_matched=%zu switches=%llu switch_refusals=%llu\n",
               g_mode.c_str(), g_enabled.c_str(),
               static_cast<unsigned long long>(g_api_calls.load()),
               static_cast<unsigned long long>(g_ids_too_large.load()), g_kernel_ids.size(),
               matched, static_cast<unsigned long long>(g_switches.load()),
               static_cast<unsigned long long>(g_switch_refusals.load()));
}

// Only async-signal-safe calls: write and backtrace_symbols_fd (backtrace
// itself was called once at start-up so that it loads libgcc there, not here).
void OnCrash(int sig, siginfo_t* info, void*) {
  char line[160];
  const int n = std::snprintf(line, sizeof line,
                              "callback_probe_crash signal=%d address=%p in_switch=%d "
                              "on_switcher=%d\n",
                              sig, info->si_addr, int(g_in_switch.load()), int(t_is_switcher));
  if (n > 0) (void)!write(2, line, size_t(n));
  void* frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
}

void CatchCrashes() {
  void* warm[1];
  backtrace(warm, 1);
  struct sigaction action {};
  action.sa_sigaction = OnCrash;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND;  // the re-raised fault kills the process
  sigaction(SIGSEGV, &action, nullptr);
  sigaction(SIGBUS, &action, nullptr);
  sigaction(SIGABRT, &action, nullptr);
}

// Walks a domain's callback ids as vprof's selection does; `enable` is a
// callback's or an activity record's switch.
template <typename Enable>
void EnableSelected(NameFn name_of, CUpti_CallbackDomain domain, uint32_t size, const char* label,
                    Enable&& enable) {
  uint32_t on = 0;
  std::string refused;
  for (uint32_t cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (name_of(domain, cbid, &name) != CUPTI_SUCCESS || !name) continue;
    if (!vprof::IsSelectedApi(name)) continue;
    const CUptiResult r = enable(cbid);
    if (r == CUPTI_SUCCESS) {
      ++on;
    } else if (refused.empty()) {
      refused = std::string(name) + ":error" + std::to_string(r);
    }
  }
  g_enabled += std::string(g_enabled.empty() ? "" : " ") + label + "=" + std::to_string(on) +
               (refused.empty() ? "" : "(first refused " + refused + ")");
}

template <typename Fn>
Fn Find(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* mode = std::getenv("PROBE_CALLBACKS");
  const char* path = std::getenv("PROBE_CUPTI");
  g_mode = mode ? mode : "";
  if (g_mode != "idle" && g_mode != "record" && g_mode != "activity" && g_mode != "kernels" &&
      g_mode != "toggle") {
    std::fprintf(stderr,
                 "callback_probe: PROBE_CALLBACKS=%s: expected idle, record, activity, "
                 "kernels or toggle\n",
                 g_mode.c_str());
    return 0;
  }
  void* lib = dlopen(path ? path : "libcupti.so", RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    std::fprintf(stderr, "callback_probe: %s\n", dlerror());
    return 0;
  }
  auto subscribe = Find<SubscribeFn>(lib, "cuptiSubscribe");
  auto enable_callback = Find<EnableCallbackFn>(lib, "cuptiEnableCallback");
  auto name_of = Find<NameFn>(lib, "cuptiGetCallbackName");
  auto enable_kind = Find<EnableKindFn>(lib, "cuptiActivityEnable");
  auto enable_runtime = Find<EnableApiFn>(lib, "cuptiActivityEnableRuntimeApi");
  auto enable_driver = Find<EnableApiFn>(lib, "cuptiActivityEnableDriverApi");
  auto reg = Find<RegisterFn>(lib, "cuptiActivityRegisterCallbacks");
  g_next = Find<NextFn>(lib, "cuptiActivityGetNextRecord");
  g_flush = Find<FlushFn>(lib, "cuptiActivityFlushAll");
  if (!subscribe || !enable_callback || !name_of || !enable_kind || !enable_runtime ||
      !enable_driver || !reg || !g_next || !g_flush) {
    std::fprintf(stderr, "callback_probe: %s lacks a function the probe calls\n",
                 path ? path : "libcupti.so");
    return 0;
  }
  g_seen = new std::atomic<uint64_t>[kIdBits / 64]();
  reg(OnRequest, OnComplete);
  if (g_mode == "idle" || g_mode == "record" || g_mode == "toggle") {
    CUpti_SubscriberHandle subscriber = nullptr;
    if (const CUptiResult r = subscribe(&subscriber, OnApi, nullptr); r != CUPTI_SUCCESS) {
      std::fprintf(stderr, "callback_probe: cuptiSubscribe: error %d\n", r);
      return 0;
    }
    g_window_open.store(g_mode != "idle");
    for (auto [domain, size, label] :
         {std::tuple{CUPTI_CB_DOMAIN_RUNTIME_API, uint32_t{CUPTI_RUNTIME_TRACE_CBID_SIZE},
                     "runtime"},
          std::tuple{CUPTI_CB_DOMAIN_DRIVER_API, uint32_t{CUPTI_DRIVER_TRACE_CBID_SIZE},
                     "driver"}}) {
      EnableSelected(name_of, domain, size, label, [&, d = domain](uint32_t cbid) {
        g_selected.emplace_back(d, cbid);
        return enable_callback(1, subscriber, d, cbid);
      });
    }
    if (g_mode == "toggle") {
      const char* ms = std::getenv("PROBE_TOGGLE_MS");
      const int period_ms = ms && std::atoi(ms) > 0 ? std::atoi(ms) : 10;
      g_switching.store(true);
      CatchCrashes();
      std::thread([=] {
        t_is_switcher = true;
        for (uint32_t on = 0; !g_stop_switching.load(); on ^= 1) {
          std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
          g_in_switch.store(true);
          for (auto [domain, cbid] : g_selected) {
            if (enable_callback(on, subscriber, domain, cbid) != CUPTI_SUCCESS) {
              g_switch_refusals.fetch_add(1, std::memory_order_relaxed);
            }
          }
          g_in_switch.store(false);
          g_switches.fetch_add(1, std::memory_order_relaxed);
        }
        g_switching.store(false);
      }).detach();
    }
  }
  if (g_mode == "activity") {
    EnableSelected(name_of, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, "runtime",
                   [&](uint32_t cbid) { return enable_runtime(cbid, 1); });
    EnableSelected(name_of, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, "driver",
                   [&](uint32_t cbid) { return enable_driver(cbid, 1); });
  }
  if (g_mode != "idle") {
    const CUptiResult r = enable_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    g_enabled += std::string(g_enabled.empty() ? "" : " ") +
                 "kernels=" + (r == CUPTI_SUCCESS ? "ok" : "error" + std::to_string(r));
  }
  std::atexit(AtExit);
  return 1;
}
