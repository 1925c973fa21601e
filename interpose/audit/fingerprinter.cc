#include "interpose/audit/fingerprinter.h"

#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "interpose/core/cuda_driver.h"
#include "interpose/core/fingerprint_fatbin.h"
#include "interpose/core/load_order.h"
#include "interpose/core/log.h"

namespace vprof {
namespace {

constexpr uint32_t kContexts = 16;
constexpr uint32_t kSlotsPerContext = 4096;
constexpr uint32_t kSlotWords = 2;  // value, tag (fingerprint_kernel.cu)
constexpr unsigned kThreads = 256;  // the kernel's block size
constexpr int kBlocksPerSm = 4;

// schema FingerprintStatusState
constexpr int32_t kStatusActive = 1, kStatusUnavailable = 2, kStatusFailed = 3;

enum SlotState : uint8_t { kFree = 0, kBusy = 1, kAbandoned = 2 };

// One CUDA context's kernel and result slots. `ready` is published (release)
// after everything else is set; a context whose set-up failed is published
// too, with ready -1, so it is not retried on every call.
struct ContextSlots {
  std::atomic<CUcontext> ctx{nullptr};
  std::atomic<int> ready{0};
  CUfunction function = nullptr;
  CUdeviceptr sums = 0;            // kSlotWords per slot: the kernel's running sum and block count
  uint64_t* results = nullptr;     // host-mapped, kSlotWords per slot: value, tag
  CUdeviceptr results_device = 0;  // the same memory as the GPU addresses it
  unsigned max_blocks = 1;
  std::atomic<uint32_t> next{0};
  std::atomic<uint8_t> state[kSlotsPerContext]{};
  // The tag the slot's current fingerprint writes; set by the reserving
  // thread, read by the writer after the handle reached it through a ring.
  uint64_t tag[kSlotsPerContext]{};
};

ContextSlots g_contexts[kContexts];

// Serialises finding the driver and setting up a context (rare). Never held
// across a kernel launch or any call back into the program.
LoadFirst<std::mutex> g_setup_lock VPROF_LOAD_FIRST;
std::atomic<const CudaDriver*> g_driver{nullptr};
std::atomic<bool> g_driver_missing{false};

std::atomic<int32_t> g_status_state{0};
std::atomic<uint64_t> g_status_generation{0};
char g_status_detail[256];

// Called with g_setup_lock held.
void SetStatus(int32_t state, const std::string& detail) {
  if (state == kStatusActive && g_status_state.load() != 0) return;  // a failure stays shown
  std::snprintf(g_status_detail, sizeof g_status_detail, "%s", detail.c_str());
  g_status_state.store(state, std::memory_order_relaxed);
  g_status_generation.fetch_add(1, std::memory_order_release);
}

const CudaDriver* Driver() {
  if (const CudaDriver* d = g_driver.load(std::memory_order_acquire)) return d;
  if (g_driver_missing.load(std::memory_order_relaxed)) return nullptr;
  std::lock_guard<std::mutex> lock(*g_setup_lock);
  if (const CudaDriver* d = g_driver.load(std::memory_order_acquire)) return d;
  auto* found = new CudaDriver;  // kept for the life of the process
  std::string error;
  if (!FindLoadedCudaDriver(found, &error)) {
    delete found;
    g_driver_missing.store(true, std::memory_order_relaxed);
    SetStatus(kStatusUnavailable, error);
    LogWarn("collective fingerprints off: {}", error);
    return nullptr;
  }
  g_driver.store(found, std::memory_order_release);
  return found;
}

// Loads the kernel and allocates the slots in `ctx`, with g_setup_lock held.
bool SetUp(const CudaDriver& d, CUcontext ctx, ContextSlots& c, std::string* error) {
  if (CUresult r = d.cuCtxPushCurrent_v2(ctx); r != CUDA_SUCCESS) {
    *error = "making the collective's context current: " + CudaResultString(d, r);
    return false;
  }
  const char* step = "";
  CUresult r = CUDA_SUCCESS;
  auto ok = [&](const char* what, CUresult result) {
    step = what;
    r = result;
    return r == CUDA_SUCCESS;
  };
  CUmodule module = nullptr;
  CUdevice device = 0;
  int sms = 1;
  void* results = nullptr;
  const size_t slot_bytes = size_t{kSlotsPerContext} * kSlotWords * sizeof(uint64_t);
  const bool done =
      ok("loading vprof's kernel", d.cuModuleLoadData(&module, kFingerprintFatbin)) &&
      ok("finding vprof_fingerprint",
         d.cuModuleGetFunction(&c.function, module, "vprof_fingerprint")) &&
      ok("asking the device", d.cuCtxGetDevice(&device)) &&
      ok("counting multiprocessors",
         d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)) &&
      ok("allocating device memory", d.cuMemAlloc_v2(&c.sums, slot_bytes)) &&
      // Once per context; the kernel leaves its sums at zero after each use.
      ok("clearing device memory", d.cuMemsetD8_v2(c.sums, 0, slot_bytes)) &&
      ok("allocating mapped host memory",
         d.cuMemHostAlloc(&results, slot_bytes,
                          CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE)) &&
      ok("mapping host memory", d.cuMemHostGetDevicePointer_v2(&c.results_device, results, 0));
  CUcontext popped = nullptr;
  d.cuCtxPopCurrent_v2(&popped);
  if (!done) {
    *error = std::string(step) + ": " + CudaResultString(d, r);
    return false;
  }
  std::memset(results, 0, slot_bytes);  // tag 0: no fingerprint written yet
  c.results = static_cast<uint64_t*>(results);
  c.max_blocks = static_cast<unsigned>(sms > 0 ? sms * kBlocksPerSm : 1);
  return true;
}

// The entry published for `ctx`, or null when there is none yet.
ContextSlots* EntryOf(CUcontext ctx) {
  for (ContextSlots& c : g_contexts) {
    if (c.ctx.load(std::memory_order_acquire) == ctx) return &c;
  }
  return nullptr;
}

ContextSlots* IfReady(ContextSlots* c) {
  return c->ready.load(std::memory_order_acquire) == 1 ? c : nullptr;
}

// The slots of `ctx`, set up on first use; null when that failed.
ContextSlots* SlotsFor(const CudaDriver& d, CUcontext ctx) {
  if (ContextSlots* c = EntryOf(ctx)) return IfReady(c);
  std::lock_guard<std::mutex> lock(*g_setup_lock);
  if (ContextSlots* c = EntryOf(ctx)) return IfReady(c);
  for (ContextSlots& c : g_contexts) {
    if (c.ctx.load(std::memory_order_relaxed) != nullptr) continue;
    std::string error;
    const bool ok = SetUp(d, ctx, c, &error);
    c.ready.store(ok ? 1 : -1, std::memory_order_release);
    c.ctx.store(ctx, std::memory_order_release);
    if (ok) {
      SetStatus(kStatusActive, "");
      return &c;
    }
    SetStatus(kStatusFailed, error);
    LogWarn("collective fingerprints off in one CUDA context: {}", error);
    return nullptr;
  }
  VPROF_WARN_ONCE(
      "collective fingerprints: more than {} CUDA contexts; the others are not fingerprinted",
      kContexts);
  return nullptr;
}

struct SlotRef {
  ContextSlots* context;
  uint32_t slot;
};

SlotRef SlotOf(FingerprintHandle handle) {
  const uint32_t index = handle - 1;
  return {&g_contexts[index / kSlotsPerContext], index % kSlotsPerContext};
}

}  // namespace

FingerprintRequest ReserveFingerprint(void* stream) {
  const CudaDriver* d = Driver();
  if (!d) return {0, FingerprintState::kFailed};
  auto s = static_cast<CUstream>(stream);
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  const CUresult r = d->cuStreamIsCapturing(s, &capture);
  // IMPLICIT: the legacy stream while another stream captures in global mode.
  if (r == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT ||
      (r == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE)) {
    return {0, FingerprintState::kSkippedGraphCapture};
  }
  CUcontext ctx = nullptr;
  if (r != CUDA_SUCCESS || d->cuStreamGetCtx(s, &ctx) != CUDA_SUCCESS || !ctx) {
    return {0, FingerprintState::kFailed};
  }
  ContextSlots* c = SlotsFor(*d, ctx);
  if (!c) return {0, FingerprintState::kFailed};
  // A few tries from the next slot in turn: slots come back in about the
  // order they were taken, so a busy one means the pool is nearly full.
  for (int tries = 0; tries < 8; ++tries) {
    const uint32_t slot = c->next.fetch_add(1, std::memory_order_relaxed) % kSlotsPerContext;
    uint8_t expected = kFree;
    if (c->state[slot].compare_exchange_strong(expected, kBusy, std::memory_order_acq_rel)) {
      ++c->tag[slot];
      const auto index = static_cast<uint32_t>(c - g_contexts) * kSlotsPerContext + slot;
      return {index + 1, FingerprintState::kLaunched};
    }
  }
  return {0, FingerprintState::kSkippedPoolFull};
}

bool LaunchFingerprint(FingerprintHandle handle, const void* data, uint64_t bytes, void* stream) {
  const CudaDriver* d = g_driver.load(std::memory_order_acquire);
  SlotRef s = SlotOf(handle);
  ContextSlots& c = *s.context;
  const uint64_t words = (bytes + 7) / 8;
  const uint64_t wanted = (words + kThreads - 1) / kThreads;
  const unsigned blocks =
      wanted == 0 ? 1u : static_cast<unsigned>(wanted < c.max_blocks ? wanted : c.max_blocks);
  // The kernel's parameters, in the order fingerprint_kernel.cu declares them.
  const void* buffer = data;
  unsigned long long length = bytes;
  CUdeviceptr sums = c.sums + CUdeviceptr{s.slot} * kSlotWords * sizeof(uint64_t);
  CUdeviceptr result = c.results_device + CUdeviceptr{s.slot} * kSlotWords * sizeof(uint64_t);
  unsigned long long tag = c.tag[s.slot];
  void* params[] = {&buffer, &length, &sums, &result, &tag};
  const CUresult r = d->cuLaunchKernel(c.function, blocks, 1, 1, kThreads, 1, 1, 0,
                                       static_cast<CUstream>(stream), params, nullptr);
  if (r == CUDA_SUCCESS) return true;
  VPROF_WARN_ONCE("collective fingerprint not launched: {}", CudaResultString(*d, r));
  AbandonFingerprint(handle);
  return false;
}

void AbandonFingerprint(FingerprintHandle handle) {
  SlotRef s = SlotOf(handle);
  s.context->state[s.slot].store(kAbandoned, std::memory_order_release);
}

FingerprintRead ReadFingerprint(FingerprintHandle handle, uint64_t* value) {
  SlotRef s = SlotOf(handle);
  ContextSlots& c = *s.context;
  if (c.state[s.slot].load(std::memory_order_acquire) == kAbandoned) {
    c.state[s.slot].store(kFree, std::memory_order_release);
    return FingerprintRead::kAbandoned;
  }
  // The kernel writes the value, then (after a system-wide fence) the tag.
  uint64_t* result = c.results + size_t{s.slot} * kSlotWords;
  if (std::atomic_ref<uint64_t>(result[1]).load(std::memory_order_acquire) != c.tag[s.slot]) {
    return FingerprintRead::kPending;
  }
  *value = std::atomic_ref<uint64_t>(result[0]).load(std::memory_order_relaxed);
  c.state[s.slot].store(kFree, std::memory_order_release);
  return FingerprintRead::kDone;
}

void ResetFingerprinterInChild(bool say_why) {
  g_setup_lock.RenewInChild();
  g_driver.store(nullptr, std::memory_order_relaxed);
  g_driver_missing.store(true, std::memory_order_relaxed);
  g_status_state.store(0, std::memory_order_relaxed);
  if (!say_why) return;
  std::lock_guard<std::mutex> lock(*g_setup_lock);
  SetStatus(kStatusUnavailable, "forked child: CUDA belongs to the parent process");
}

FingerprintStatusView FingerprintStatus() {
  FingerprintStatusView v;
  v.generation = g_status_generation.load(std::memory_order_acquire);
  v.state = g_status_state.load(std::memory_order_relaxed);
  v.detail = g_status_detail;
  return v;
}

}  // namespace vprof
