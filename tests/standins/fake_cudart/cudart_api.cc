// The exported CUDA runtime entry points, with the signatures of the real cuda_runtime_api.h.
// "Device" memory is host memory and kernels are timed sleeps on the stream's worker thread.
#include <cuda_runtime_api.h>
#include <cupti_runtime_cbid.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "activity_hooks.h"
#include "fake_cudart.h"
#include "injection.h"
#include "monotonic_clock.h"
#include "played_costs.h"
#include "runtime.h"

namespace {

using fake_cudart::Runtime;

// cudaMalloc's alignment guarantee.
constexpr size_t kAllocationAlignment = 256;
constexpr int kDefaultDeviceCount = 8;

thread_local int t_current_device = 0;

// The size of each live allocation of one kind (cudaMalloc's, cudaMallocHost's), for the
// release's record, which memory a copy touches and what they hold together (the fake NVML's
// figure, of cudaMalloc's).
class AllocationSizeTable {
 public:
  void Add(const void* address, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    sizes_[Address(address)] = bytes;
    held_ += bytes;
  }
  // The allocation's size, forgotten; 0 for an address this table did not give.
  size_t Take(const void* address) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = sizes_.find(Address(address));
    if (found == sizes_.end()) return 0;
    const size_t bytes = found->second;
    sizes_.erase(found);
    held_ -= bytes;
    return bytes;
  }
  // Whether `address` lies inside a live allocation.
  bool Holds(const void* address) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto after = sizes_.upper_bound(Address(address));
    if (after == sizes_.begin()) return false;
    --after;
    return Address(address) < after->first + after->second;
  }
  uint64_t Held() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_;
  }

 private:
  static uintptr_t Address(const void* address) { return reinterpret_cast<uintptr_t>(address); }

  std::mutex mutex_;
  std::map<uintptr_t, size_t> sizes_;
  uint64_t held_ = 0;
};

// Both outlive exit-time frees.
AllocationSizeTable& AllocationSizes() {
  static AllocationSizeTable* table = new AllocationSizeTable();
  return *table;
}
AllocationSizeTable& PinnedAllocations() {
  static AllocationSizeTable* table = new AllocationSizeTable();
  return *table;
}

// The copy `kind` names, with cudaMemcpyDefault resolved by where the pointers lie (memory
// cudaMalloc gave is the device's), and whether each host side is pinned (cudaMallocHost's).
fake_cudart::CopyOp DirectedCopy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDefault) {
    const bool from_device = AllocationSizes().Holds(src);
    const bool to_device = AllocationSizes().Holds(dst);
    kind = from_device ? (to_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                       : (to_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  }
  const bool from_host = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost;
  const bool to_host = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost;
  fake_cudart::CopyOp copy{dst, src, count};
  copy.direction = kind;
  copy.src_pinned = from_host && PinnedAllocations().Holds(src);
  copy.dst_pinned = to_host && PinnedAllocations().Holds(dst);
  return copy;
}

thread_local cudaError_t t_last_error = cudaSuccess;

// A failing call also becomes the calling thread's last error, as in the real runtime.
cudaError_t Fail(cudaError_t error) {
  t_last_error = error;
  return error;
}

// FAKE_CUDA_DEVICES overrides the device count; read on every call so tests can change it.
int DeviceCount() {
  const char* text = std::getenv("FAKE_CUDA_DEVICES");
  if (text == nullptr || *text == '\0') return kDefaultDeviceCount;
  char* end = nullptr;
  const long count = std::strtol(text, &end, 10);
  return (*end == '\0' && count >= 0 && count <= 1024) ? static_cast<int>(count)
                                                       : kDefaultDeviceCount;
}

cudaError_t Enqueue(cudaStream_t handle, fake_cudart::StreamOp op) {
  const auto stream = Runtime::Get().FindStream(handle);
  if (!stream) return Fail(cudaErrorInvalidResourceHandle);
  const cudaError_t result = stream->Enqueue(std::move(op));
  return result == cudaSuccess ? result : Fail(result);
}

// The exported entry points never call each other: an interposer would see such inner calls
// as extra API calls, which the real runtime does not make.
cudaError_t CreateStream(cudaStream_t* stream, unsigned int flags) {
  // The default stream does not synchronize with other streams here, so the flags only need
  // validating.
  if (stream == nullptr || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)) {
    return Fail(cudaErrorInvalidValue);
  }
  *stream = Runtime::Get().CreateStream();
  return cudaSuccess;
}

cudaError_t CreateEvent(cudaEvent_t* event, unsigned int flags) {
  constexpr unsigned int kKnownFlags =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (event == nullptr || (flags & ~kKnownFlags) != 0) return Fail(cudaErrorInvalidValue);
  if ((flags & cudaEventInterprocess) != 0 && (flags & cudaEventDisableTiming) == 0) {
    return Fail(cudaErrorInvalidValue);
  }
  *event = Runtime::Get().CreateEvent((flags & cudaEventDisableTiming) == 0);
  return cudaSuccess;
}

bool IsCopyKind(cudaMemcpyKind kind) {
  return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault;
}

}  // namespace

namespace fake_cudart {

cudaError_t SynchronizeStream(cudaStream_t handle) {
  const auto stream = Runtime::Get().FindStream(handle);
  if (!stream) return Fail(cudaErrorInvalidResourceHandle);
  stream->Synchronize();
  return cudaSuccess;
}

cudaStream_t CreateStreamHandle() { return Runtime::Get().CreateStream(); }

bool DestroyStreamHandle(cudaStream_t stream) { return Runtime::Get().DestroyStream(stream); }

cudaEvent_t CreateTimedEvent() { return Runtime::Get().CreateEvent(true); }

cudaError_t RecordEvent(cudaEvent_t event, cudaStream_t stream) {
  const auto recorded = Runtime::Get().FindEvent(event);
  if (!recorded) return cudaErrorInvalidResourceHandle;
  const auto target = Runtime::Get().FindStream(stream);
  if (!target) return cudaErrorInvalidResourceHandle;
  return target->Enqueue(RecordOp{recorded->NewRecord()});
}

cudaError_t ElapsedMs(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return cudaErrorInvalidValue;
  const auto start_event = Runtime::Get().FindEvent(start);
  const auto end_event = Runtime::Get().FindEvent(end);
  if (!start_event || !end_event) return cudaErrorInvalidResourceHandle;
  if (!start_event->timing_enabled() || !end_event->timing_enabled()) {
    return cudaErrorInvalidResourceHandle;
  }
  const auto start_record = start_event->Latest();
  const auto end_record = end_event->Latest();
  if (!start_record || !end_record) return cudaErrorInvalidResourceHandle;
  if (!start_record->IsComplete() || !end_record->IsComplete()) return cudaErrorNotReady;
  const double elapsed_ns = static_cast<double>(end_record->CompletionNs()) -
                            static_cast<double>(start_record->CompletionNs());
  *ms = static_cast<float>(elapsed_ns / 1e6);
  return cudaSuccess;
}

bool DestroyEventHandle(cudaEvent_t event) { return Runtime::Get().DestroyEvent(event); }

int CurrentDevice() { return t_current_device; }

bool StreamCapturing(cudaStream_t handle) {
  const auto stream = Runtime::Get().FindStream(handle);
  return stream && stream->capturing();
}

cudaError_t EnqueueKernel(cudaStream_t stream, const char* name, std::function<void()> body) {
  return Enqueue(stream, KernelOp{nullptr, 0, name, std::move(body)});
}

}  // namespace fake_cudart

// The library is built with hidden visibility; exactly the CUDA API is exported (and
// fake_cudart_bytes_held, for the fake NVML).
#pragma GCC visibility push(default)
extern "C" {

// Like every call that reaches Runtime::Get(), the device and allocation calls
// initialise CUDA (injection.h), although they touch no runtime state.
cudaError_t cudaGetDeviceCount(int* count) {
  fake_cudart::InitializeOnce();
  if (count == nullptr) return Fail(cudaErrorInvalidValue);
  *count = DeviceCount();
  return *count == 0 ? Fail(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  fake_cudart::InitializeOnce();
  if (device < 0 || device >= DeviceCount()) return Fail(cudaErrorInvalidDevice);
  t_current_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  fake_cudart::InitializeOnce();
  fake_cudart::ReportCalled(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
  if (device == nullptr) return Fail(cudaErrorInvalidValue);
  *device = t_current_device;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** dev_ptr, size_t size) {
  fake_cudart::InitializeOnce();
  const uint64_t called_ns = standins::MonotonicNs();
  if (dev_ptr == nullptr) return Fail(cudaErrorInvalidValue);
  *dev_ptr = nullptr;
  if (size == 0) return cudaSuccess;
  const size_t rounded =
      (size + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
  *dev_ptr = std::aligned_alloc(kAllocationAlignment, rounded);
  if (*dev_ptr == nullptr) return Fail(cudaErrorMemoryAllocation);
  // CUPTI reports the size asked for; the release reports the same.
  AllocationSizes().Add(*dev_ptr, size);
  // The played cost is a floor: the call lasts at least that long, however long the allocation
  // itself took (glibc may fill it, as under MALLOC_PERTURB_).
  standins::SleepUntilNs(called_ns + fake_cudart::MallocCostNs());
  fake_cudart::ReportMemory(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, false,
                            reinterpret_cast<uintptr_t>(*dev_ptr), size,
                            static_cast<uint32_t>(t_current_device), called_ns);
  return cudaSuccess;
}

// Not CUDA's: the bytes cudaMalloc holds, on whichever device, which the fake
// NVML (tests/standins/fake_nvml) reports as in use, as the real NVML sees
// what the real runtime allocated. Not by device: the fake CUPTI's kernel
// records name no device (0), so vprof samples device 0 whatever the
// process's current device.
uint64_t fake_cudart_bytes_held() { return AllocationSizes().Held(); }

// Like the real cudaFree, waits for the device first, so queued work never sees freed memory.
cudaError_t cudaFree(void* dev_ptr) {
  const uint64_t called_ns = standins::MonotonicNs();
  Runtime::Get().SynchronizeDevice();
  if (dev_ptr != nullptr) {
    fake_cudart::ReportMemory(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, true,
                              reinterpret_cast<uintptr_t>(dev_ptr), AllocationSizes().Take(dev_ptr),
                              static_cast<uint32_t>(t_current_device), called_ns);
  }
  std::free(dev_ptr);
  return cudaSuccess;
}

// Page-locked host memory: plain host memory here, remembered so that a copy from or into it is
// reported as pinned, as CUPTI reports it. One helper for both entry points, so that neither
// calls the other (an interposer would see a call the program did not make).
static cudaError_t AllocatePinned(void** ptr, size_t size) {
  fake_cudart::InitializeOnce();
  if (ptr == nullptr) return Fail(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;
  *ptr = std::malloc(size);
  if (*ptr == nullptr) return Fail(cudaErrorMemoryAllocation);
  PinnedAllocations().Add(*ptr, size);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int /*flags*/) {
  return AllocatePinned(ptr, size);
}

cudaError_t cudaMallocHost(void** ptr, size_t size) { return AllocatePinned(ptr, size); }

cudaError_t cudaFreeHost(void* ptr) {
  Runtime::Get().SynchronizeDevice();
  if (ptr != nullptr && PinnedAllocations().Take(ptr) == 0) return Fail(cudaErrorInvalidValue);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (!IsCopyKind(kind)) return Fail(cudaErrorInvalidMemcpyDirection);
  if (count > 0 && (dst == nullptr || src == nullptr)) return Fail(cudaErrorInvalidValue);
  if (const cudaError_t error = Enqueue(nullptr, DirectedCopy(dst, src, count, kind))) {
    return error;
  }
  return fake_cudart::SynchronizeStream(nullptr);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!IsCopyKind(kind)) return Fail(cudaErrorInvalidMemcpyDirection);
  if (count > 0 && (dst == nullptr || src == nullptr)) return Fail(cudaErrorInvalidValue);
  return Enqueue(stream, DirectedCopy(dst, src, count, kind));
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream) {
  const int devices = DeviceCount();
  if (src_device < 0 || src_device >= devices || dst_device < 0 || dst_device >= devices) {
    return Fail(cudaErrorInvalidDevice);
  }
  if (count > 0 && (dst == nullptr || src == nullptr)) return Fail(cudaErrorInvalidValue);
  fake_cudart::CopyOp copy{dst, src, count};
  copy.src_device = src_device;
  copy.dst_device = dst_device;
  return Enqueue(stream, copy);
}

cudaError_t cudaMemsetAsync(void* dev_ptr, int value, size_t count, cudaStream_t stream) {
  if (count > 0 && dev_ptr == nullptr) return Fail(cudaErrorInvalidValue);
  return Enqueue(stream, fake_cudart::FillOp{dev_ptr, value, count});
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return CreateStream(stream, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return CreateStream(stream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return Runtime::Get().DestroyStream(stream) ? cudaSuccess : Fail(cudaErrorInvalidResourceHandle);
}

// Capture of a created stream only (the default stream cannot capture, as in CUDA): kernels,
// copies and fills queued on it until cudaStreamEndCapture become the graph's nodes (stream.h).
// The modes are accepted and not enforced: no call on another stream or thread is refused.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed) {
    return Fail(cudaErrorInvalidValue);
  }
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    return Fail(cudaErrorStreamCaptureUnsupported);
  }
  const auto s = Runtime::Get().FindStream(stream);
  if (!s) return Fail(cudaErrorInvalidResourceHandle);
  return s->BeginCapture() ? cudaSuccess : Fail(cudaErrorIllegalState);
}

// A capture that an uncapturable operation broke ends with cudaErrorStreamCaptureInvalidated and
// a null graph, as in CUDA. A null `graph` ends the capture and drops its graph: CUDA 13 did so,
// returning cudaSuccess (measured on an H200).
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  const auto s = Runtime::Get().FindStream(stream);
  if (!s) return Fail(cudaErrorInvalidResourceHandle);
  std::shared_ptr<fake_cudart::Graph> built;
  const cudaError_t result = s->EndCapture(&built);
  if (graph != nullptr) *graph = built ? Runtime::Get().AddGraph(std::move(built)) : nullptr;
  return result == cudaSuccess ? result : Fail(result);
}

// Copies the graph's nodes: the executable graph is independent of the graph from here on.
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* graph_exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  constexpr unsigned long long kKnownFlags = cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                             cudaGraphInstantiateFlagDeviceLaunch |
                                             cudaGraphInstantiateFlagUseNodePriority;
  // Upload is for cudaGraphInstantiateWithParams only; device launch excludes auto-free.
  if (graph_exec == nullptr || (flags & ~kKnownFlags) != 0 ||
      ((flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0 &&
       (flags & cudaGraphInstantiateFlagDeviceLaunch) != 0)) {
    return Fail(cudaErrorInvalidValue);
  }
  const auto source = Runtime::Get().FindGraph(graph);
  if (!source) return Fail(cudaErrorInvalidValue);
  auto exec = std::make_shared<fake_cudart::GraphExec>(source->id(), source->Nodes());
  const uint32_t exec_id = exec->id();
  *graph_exec = Runtime::Get().AddGraphExec(std::move(exec));
  fake_cudart::ReportGraphInstantiated(graph, source->id(), *graph_exec, exec_id);
  return cudaSuccess;
}

// One operation on the stream, with one correlation id, whose replay runs the nodes.
// Into a capturing stream, refused and breaking the capture whatever the executable graph, as
// CUDA 13 did (measured on an H200).
cudaError_t cudaGraphLaunch(cudaGraphExec_t graph_exec, cudaStream_t stream) {
  const auto target = Runtime::Get().FindStream(stream);
  if (!target) return Fail(cudaErrorInvalidResourceHandle);
  if (const cudaError_t refused = target->RefuseInCapture(cudaErrorStreamCaptureUnsupported)) {
    return Fail(refused);
  }
  const auto exec = Runtime::Get().FindGraphExec(graph_exec);
  if (!exec) return Fail(cudaErrorInvalidValue);
  fake_cudart::GraphLaunchOp launch{exec, nullptr, nullptr};
  std::shared_ptr<fake_cudart::EventRecord> previous, done;
  cudaError_t result;
  {
    // Taking its place in the launch order and queueing are one step: two threads launching
    // into one stream could otherwise queue a launch ahead of the one it waits for, forever.
    std::lock_guard order(exec->launch_order());
    launch.done = exec->NextLaunch(&launch.previous);
    previous = launch.previous;
    done = launch.done;
    result = target->Enqueue(std::move(launch));
  }
  if (result == cudaSuccess) return result;
  // The stream began capturing since the check above: this launch never runs, but the next one
  // of the executable graph waits for it, so it completes once its predecessor has.
  if (previous) previous->Wait();
  done->Complete(standins::MonotonicNs());
  return Fail(result);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graph_exec) {
  return Runtime::Get().DestroyGraphExec(graph_exec) ? cudaSuccess : Fail(cudaErrorInvalidValue);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return Runtime::Get().DestroyGraph(graph) ? cudaSuccess : Fail(cudaErrorInvalidValue);
}

// Illegal on a capturing stream: breaks the capture and is refused, also once broken, as CUDA 13
// did. (The fake NCCL's own synchronisation, SynchronizeStream, is not refused.)
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  fake_cudart::ReportCalled(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
  const auto s = Runtime::Get().FindStream(stream);
  if (!s) return Fail(cudaErrorInvalidResourceHandle);
  if (s->RefuseInCapture(cudaErrorStreamCaptureUnsupported) != cudaSuccess) {
    return Fail(cudaErrorStreamCaptureUnsupported);
  }
  s->Synchronize();
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (flags != cudaEventWaitDefault && flags != cudaEventWaitExternal) {
    return Fail(cudaErrorInvalidValue);
  }
  const auto waited = Runtime::Get().FindEvent(event);
  if (!waited) return Fail(cudaErrorInvalidResourceHandle);
  std::shared_ptr<fake_cudart::EventRecord> record = waited->Latest();
  // Waiting for an event that was never recorded is a no-op.
  if (!record)
    return Runtime::Get().FindStream(stream) ? cudaSuccess : Fail(cudaErrorInvalidResourceHandle);
  return Enqueue(stream, fake_cudart::WaitOp{std::move(record)});
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return CreateEvent(event, cudaEventDefault); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  return CreateEvent(event, flags);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  const cudaError_t result = fake_cudart::RecordEvent(event, stream);
  return result == cudaSuccess ? result : Fail(result);
}

// cudaErrorNotReady is a status, not an error: it does not become the last error.
cudaError_t cudaEventQuery(cudaEvent_t event) {
  const auto queried = Runtime::Get().FindEvent(event);
  if (!queried) return Fail(cudaErrorInvalidResourceHandle);
  const auto record = queried->Latest();
  return (!record || record->IsComplete()) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  fake_cudart::ReportCalled(CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020);
  const auto waited = Runtime::Get().FindEvent(event);
  if (!waited) return Fail(cudaErrorInvalidResourceHandle);
  if (const auto record = waited->Latest()) record->Wait();
  return cudaSuccess;
}

// cudaErrorNotReady is a status, not an error: it does not become the last error.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  const cudaError_t result = fake_cudart::ElapsedMs(ms, start, end);
  return result == cudaSuccess || result == cudaErrorNotReady ? result : Fail(result);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return Runtime::Get().DestroyEvent(event) ? cudaSuccess : Fail(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaDeviceSynchronize(void) {
  fake_cudart::ReportCalled(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
  Runtime::Get().SynchronizeDevice();
  return cudaSuccess;
}

// A stand-in kernel's first parameter is its duration in nanoseconds (a kernel launched without
// parameters takes no time). Like CUDA, the parameters are read at launch.
cudaError_t cudaLaunchKernel(const void* func, dim3 grid_dim, dim3 block_dim, void** args,
                             size_t /*shared_mem*/, cudaStream_t stream) {
  if (func == nullptr) return Fail(cudaErrorInvalidDeviceFunction);
  if (grid_dim.x * grid_dim.y * grid_dim.z == 0 || block_dim.x * block_dim.y * block_dim.z == 0) {
    return Fail(cudaErrorInvalidConfiguration);
  }
  uint64_t duration_ns = 0;
  if (args != nullptr && args[0] != nullptr) {
    std::memcpy(&duration_ns, args[0], sizeof duration_ns);
  }
  return Enqueue(stream, fake_cudart::KernelOp{func, duration_ns, nullptr, {}});
}

cudaError_t cudaGetLastError(void) {
  const cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  return error;
}

cudaError_t cudaPeekAtLastError(void) { return t_last_error; }

cudaError_t cudaRuntimeGetVersion(int* runtime_version) {
  if (runtime_version == nullptr) return Fail(cudaErrorInvalidValue);
  *runtime_version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* driver_version) {
  if (driver_version == nullptr) return Fail(cudaErrorInvalidValue);
  *driver_version = CUDART_VERSION;
  return cudaSuccess;
}

}  // extern "C"
#pragma GCC visibility pop
