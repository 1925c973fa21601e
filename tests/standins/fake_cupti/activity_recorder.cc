#include "activity_recorder.h"

#include <dlfcn.h>
#include <driver_types.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "activity_hooks.h"
#include "callback_names.h"
#include "monotonic_clock.h"

namespace fake_cupti {
namespace {

std::array<std::atomic<bool>, CUPTI_ACTIVITY_KIND_COUNT> g_enabled{};
std::array<std::atomic<bool>, CUPTI_RUNTIME_TRACE_CBID_SIZE> g_runtime_apis{};
std::array<std::atomic<bool>, CUPTI_DRIVER_TRACE_CBID_SIZE> g_driver_apis{};
std::atomic<CUpti_TimestampCallbackFunc> g_timestamp{nullptr};
std::atomic<uint32_t> g_last_correlation_id{0};
// Per thread and kind, as CUPTI keeps them: the ids pushed and not yet popped.
thread_local std::array<std::vector<uint64_t>, CUPTI_EXTERNAL_CORRELATION_KIND_SIZE> t_external_ids;

bool Enabled(CUpti_ActivityKind kind) { return g_enabled[kind].load(std::memory_order_relaxed); }

// Held across the subscriber's callback and by every switch of a kind or an API's records.
// Whether the real CUPTI holds such a lock is not documented; the fake does, so that a client
// that waits inside the callback for a thread that is switching recording hangs here every
// time. FAKE_CUPTI_CALLBACK_DELAY_MS (default 0) holds it that long before the callback, so
// that such a thread comes in meanwhile.
std::recursive_mutex g_callback_lock;

// The threads that queued work: the first one's id, and whether another did too. Switching one
// API's records while another thread may be inside a launch crashed CUPTI 13.0 in that launch
// on an H200 (about once in 6,000 switches); the fake refuses it outright (EnableApi).
std::atomic<pid_t> g_first_queuer{0};
std::atomic<bool> g_other_queuers{false};
thread_local bool t_queued = false;

void NoteQueuer() {
  if (t_queued) return;
  t_queued = true;
  pid_t none = 0;
  if (!g_first_queuer.compare_exchange_strong(none, gettid())) g_other_queuers.store(true);
}

bool AnotherThreadQueued() {
  const pid_t first = g_first_queuer.load();
  return first != 0 && (g_other_queuers.load() || first != gettid());
}

std::atomic<CUpti_CallbackFunc> g_subscriber_callback{nullptr};
std::atomic<void*> g_subscriber_userdata{nullptr};
std::atomic<bool> g_context_created_enabled{false};
std::atomic<bool> g_graph_exec_created_enabled{false};
// Graph and executable graph handles to their ids, as instantiated.
std::mutex g_graph_ids_lock;
std::unordered_map<const void*, uint32_t> g_graph_ids;
std::unordered_map<const void*, uint32_t> g_graph_exec_ids;
char g_context;  // the handle of the fake's one context; only ever compared

// What recording a kernel costs on a real GPU, played by spinning that long, in nanoseconds (0,
// none, when unset), for the tests of vprof's launch-cost calibration:
// FAKE_CUPTI_LAUNCH_COST_NS in each launch while kernels are recorded (CUPTI's work in the
// launching thread), FAKE_CUPTI_KERNEL_GPU_COST_NS on the stream after each recorded kernel
// (the GPU's work for the record, which delays the stream's next kernel).
uint64_t CostNs(const char* variable) {
  const char* text = std::getenv(variable);
  return text != nullptr ? std::strtoull(text, nullptr, 10) : 0;
}

uint64_t LaunchCostNs() {
  static const uint64_t cost = CostNs("FAKE_CUPTI_LAUNCH_COST_NS");
  return cost;
}

uint64_t KernelGpuCostNs() {
  static const uint64_t cost = CostNs("FAKE_CUPTI_KERNEL_GPU_COST_NS");
  return cost;
}

void SpinFor(uint64_t ns) {
  const uint64_t until = standins::MonotonicNs() + ns;
  while (standins::MonotonicNs() < until) {
  }
}

// CUPTI decides at launch whether GPU work leaves a record: work queued while no kind of GPU
// activity was enabled leaves none, even if a kind is enabled before it runs (vprof's deep
// windows open and close while work is in flight). Such work's correlation id carries this bit
// back from the runtime, which passes the id through untouched.
constexpr uint32_t kQueuedUntraced = 1u << 31;
// Likewise at launch: a graph launched while GRAPH_TRACE was enabled is recorded whole, by one
// GraphTrace2 record per replay, and its nodes write no kernel or copy records (what CUPTI 13
// did on an H200 with CONCURRENT_KERNEL on too); launched while it was off, its nodes are
// recorded one by one. The launch's correlation id, which its nodes' reports carry too, says
// which with this bit; records never show it.
constexpr uint32_t kQueuedWholeGraph = 1u << 30;
// The bits above are never part of an id: ids stay below 2^30.
constexpr uint32_t kCorrelationIdMask = kQueuedWholeGraph - 1;

bool AnyGpuWorkKindEnabled() {
  for (const CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_CUDA_EVENT, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        CUPTI_ACTIVITY_KIND_GRAPH_TRACE}) {
    if (Enabled(kind)) return true;
  }
  return false;
}

bool QueuedUntraced(uint32_t correlation_id) { return (correlation_id & kQueuedUntraced) != 0; }
bool QueuedWholeGraph(uint32_t correlation_id) { return (correlation_id & kQueuedWholeGraph) != 0; }
// Whether a kernel, copy or fill reported with this id leaves a record of its own: not if its
// launch was untraced, nor if it ran in a graph replay recorded whole.
bool NodeTraced(uint32_t correlation_id) {
  return !QueuedUntraced(correlation_id) && !QueuedWholeGraph(correlation_id);
}

uint32_t NextCorrelationId() {
  return (g_last_correlation_id.fetch_add(1) + 1) & kCorrelationIdMask;
}

// The runtime reports CLOCK_MONOTONIC; CUPTI reports GPU times on the client's clock when a
// timestamp callback is registered. The offset between the clocks is read once per record (so
// a record's duration is exact), CLOCK_MONOTONIC first: a delay between the two reads can only
// make times later than the truth, never earlier than an event that preceded them.
int64_t ClientOffset() {
  const CUpti_TimestampCallbackFunc callback = g_timestamp.load(std::memory_order_acquire);
  if (callback == nullptr) return 0;
  const uint64_t monotonic_now = standins::MonotonicNs();
  return static_cast<int64_t>(callback() - monotonic_now);
}

template <typename Record>
void Write(const Record& record) {
  Buffers().Append(&record, sizeof(record));
}

// The RUNTIME record of the API call that queued an operation, from `start_ns` (on the stand-ins'
// clock) to now: the played cost of recording is inside the call, as CUPTI's own work is.
void WriteRuntimeCall(uint32_t cbid, uint32_t correlation_id, uint64_t start_ns) {
  const bool selected =
      cbid < g_runtime_apis.size() && g_runtime_apis[cbid].load(std::memory_order_relaxed);
  if (!Enabled(CUPTI_ACTIVITY_KIND_RUNTIME) && !selected) return;
  CUpti_ActivityAPI record{};
  record.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  record.cbid = static_cast<CUpti_CallbackId>(cbid);
  record.start = start_ns + ClientOffset();
  record.end = standins::MonotonicNs() + ClientOffset();
  record.processId = static_cast<uint32_t>(getpid());
  record.threadId = static_cast<uint32_t>(gettid());
  record.correlationId = correlation_id;
  Write(record);
}

uint32_t OnQueued(uint32_t cbid) {
  const uint64_t start_ns = standins::MonotonicNs();
  NoteQueuer();
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 &&
      Enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    SpinFor(LaunchCostNs());
  }
  const uint32_t correlation_id = NextCorrelationId();
  WriteRuntimeCall(cbid, correlation_id, start_ns);
  if (!AnyGpuWorkKindEnabled()) return correlation_id | kQueuedUntraced;
  const uint32_t passed = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 &&
                                  Enabled(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)
                              ? correlation_id | kQueuedWholeGraph
                              : correlation_id;
  if (!Enabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) return passed;
  // CUPTI writes the innermost id of each kind before the activity it correlates.
  for (size_t kind = 0; kind < t_external_ids.size(); ++kind) {
    if (t_external_ids[kind].empty()) continue;
    CUpti_ActivityExternalCorrelation record{};
    record.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    record.externalKind = static_cast<CUpti_ExternalCorrelationKind>(kind);
    record.externalId = t_external_ids[kind].back();
    record.correlationId = correlation_id;
    Write(record);
  }
  return passed;
}

// A call that queues nothing (cudaGetDevice, cudaStreamSynchronize): its record alone, with a
// correlation id of its own.
void OnCalled(uint32_t cbid) {
  WriteRuntimeCall(cbid, NextCorrelationId(), standins::MonotonicNs());
}

void OnKernel(const char* name, uint32_t stream_id, uint32_t correlation_id, uint32_t graph_id,
              uint64_t graph_node_id, uint64_t start_ns, uint64_t end_ns) {
  if (!NodeTraced(correlation_id)) return;
  // vprof enables CONCURRENT_KERNEL; KERNEL is the serialising variant with the same record.
  const CUpti_ActivityKind kind = Enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                                      ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
                                      : CUPTI_ACTIVITY_KIND_KERNEL;
  if (!Enabled(kind)) return;
  SpinFor(KernelGpuCostNs());
  CUpti_ActivityKernel10 record{};
  record.kind = kind;
  const int64_t offset = ClientOffset();
  record.start = start_ns + offset;
  record.end = end_ns + offset;
  record.completed = record.end;
  record.streamId = stream_id;
  record.gridX = record.gridY = record.gridZ = 1;
  record.blockX = record.blockY = record.blockZ = 1;
  record.correlationId = correlation_id;
  record.name = name;
  record.graphId = graph_id;
  record.graphNodeId = graph_node_id;
  Write(record);
}

// The memory kind CUPTI gives a side of a copy: the device's, or pinned or pageable host memory.
uint8_t MemoryKind(bool on_host, bool pinned) {
  if (!on_host) return CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  return pinned ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED : CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
}

void OnMemcpy(uint64_t bytes, int direction, bool src_pinned, bool dst_pinned, uint32_t stream_id,
              uint32_t correlation_id, uint32_t graph_id, uint64_t graph_node_id, uint64_t start_ns,
              uint64_t end_ns) {
  if (!NodeTraced(correlation_id)) return;
  if (!Enabled(CUPTI_ACTIVITY_KIND_MEMCPY)) return;
  // The direction and memory kinds as the fake runtime knows them ("device" memory is host
  // memory in the stand-in, but cudaMalloc gave it).
  const bool from_host = direction == cudaMemcpyHostToDevice || direction == cudaMemcpyHostToHost;
  const bool to_host = direction == cudaMemcpyDeviceToHost || direction == cudaMemcpyHostToHost;
  CUpti_ActivityMemcpy6 record{};
  record.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  record.copyKind =
      from_host ? (to_host ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOH : CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)
                : (to_host ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOH : CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
  record.srcKind = MemoryKind(from_host, src_pinned);
  record.dstKind = MemoryKind(to_host, dst_pinned);
  record.bytes = bytes;
  const int64_t offset = ClientOffset();
  record.start = start_ns + offset;
  record.end = end_ns + offset;
  record.streamId = stream_id;
  record.correlationId = correlation_id;
  record.graphId = graph_id;
  record.graphNodeId = graph_node_id;
  Write(record);
}

// What real CUPTI writes for a copy between two GPUs: a MEMCPY2 record, never
// a MEMCPY one.
void OnPeerMemcpy(uint64_t bytes, uint32_t src_device, uint32_t dst_device, uint32_t stream_id,
                  uint32_t correlation_id, uint32_t graph_id, uint64_t graph_node_id,
                  uint64_t start_ns, uint64_t end_ns) {
  if (!NodeTraced(correlation_id)) return;
  if (!Enabled(CUPTI_ACTIVITY_KIND_MEMCPY2)) return;
  CUpti_ActivityMemcpyPtoP4 record{};
  record.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  record.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  record.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  record.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  record.bytes = bytes;
  const int64_t offset = ClientOffset();
  record.start = start_ns + offset;
  record.end = end_ns + offset;
  record.deviceId = dst_device;
  record.srcDeviceId = src_device;
  record.dstDeviceId = dst_device;
  record.streamId = stream_id;
  record.correlationId = correlation_id;
  record.graphId = graph_id;
  record.graphNodeId = graph_node_id;
  Write(record);
}

void OnEventRecord(uint32_t event_id, uint64_t sync_id, uint32_t stream_id, uint32_t correlation_id,
                   uint64_t completion_ns) {
  if (QueuedUntraced(correlation_id)) return;
  if (!Enabled(CUPTI_ACTIVITY_KIND_CUDA_EVENT)) return;
  CUpti_ActivityCudaEvent2 record{};
  record.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  record.correlationId = correlation_id;
  record.streamId = stream_id;
  record.eventId = event_id;
  record.deviceTimestamp = completion_ns + ClientOffset();
  record.cudaEventSyncId = sync_id;
  Write(record);
}

void OnStreamWait(uint32_t event_id, uint64_t sync_id, uint32_t stream_id, uint32_t correlation_id,
                  uint64_t start_ns, uint64_t end_ns) {
  if (QueuedUntraced(correlation_id)) return;
  if (!Enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)) return;
  CUpti_ActivitySynchronization2 record{};
  record.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  record.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  const int64_t offset = ClientOffset();
  record.start = start_ns + offset;
  record.end = end_ns + offset;
  record.correlationId = correlation_id;
  record.streamId = stream_id;
  record.cudaEventId = event_id;
  record.cudaEventSyncId = sync_id;
  Write(record);
}

// A replay of a graph launched while GRAPH_TRACE was enabled, if it still is when the replay
// ends (like the kinds of other work, disabling GRAPH_TRACE stops the records of replays not yet
// run). On the fake's one device and context (ids 0), where it also ends.
void OnGraphReplay(uint32_t graph_id, uint32_t stream_id, uint32_t correlation_id,
                   uint64_t start_ns, uint64_t end_ns) {
  if (QueuedUntraced(correlation_id) || !QueuedWholeGraph(correlation_id)) return;
  if (!Enabled(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)) return;
  CUpti_ActivityGraphTrace2 record{};
  record.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  record.correlationId = correlation_id & kCorrelationIdMask;
  const int64_t offset = ClientOffset();
  record.start = start_ns + offset;
  record.end = end_ns + offset;
  record.deviceId = 0;
  record.graphId = graph_id;
  record.contextId = 0;
  record.streamId = stream_id;
  record.endDeviceId = 0;
  record.endContextId = 0;
  Write(record);
}

// A cudaMalloc or cudaFree called at `at_ns`: its RUNTIME record, from then to now, and, with
// MEMORY2 on, the allocation or release with the same correlation id, as CUPTI writes them.
void OnMemory(uint32_t cbid, bool released, uint64_t address, uint64_t bytes, uint32_t device,
              uint64_t at_ns) {
  const uint32_t correlation_id = NextCorrelationId();
  WriteRuntimeCall(cbid, correlation_id, at_ns);
  if (!Enabled(CUPTI_ACTIVITY_KIND_MEMORY2)) return;
  CUpti_ActivityMemory4 record{};
  record.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  record.memoryOperationType = released ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
                                        : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  record.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  record.correlationId = correlation_id;
  record.address = address;
  record.bytes = bytes;
  record.timestamp = at_ns + ClientOffset();
  record.processId = static_cast<uint32_t>(getpid());
  record.deviceId = device;
  Write(record);
}

void OnContextCreated() {
  const CUpti_CallbackFunc callback = g_subscriber_callback.load(std::memory_order_acquire);
  if (callback == nullptr || !g_context_created_enabled.load(std::memory_order_acquire)) return;
  CUpti_ResourceData data{};
  data.context = reinterpret_cast<CUcontext>(&g_context);
  const std::lock_guard<std::recursive_mutex> lock(g_callback_lock);
  if (const char* ms = std::getenv("FAKE_CUPTI_CALLBACK_DELAY_MS")) {
    const long n = std::atol(ms);
    const timespec pause{n / 1000, (n % 1000) * 1000000};
    nanosleep(&pause, nullptr);
  }
  callback(g_subscriber_userdata.load(std::memory_order_acquire), CUPTI_CB_DOMAIN_RESOURCE,
           CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &data);
}

// As CUPTI: the ids of the graphs and executable graphs it saw instantiated, for
// cuptiGetGraphId and cuptiGetGraphExecId; then the GRAPHEXEC_CREATED callback, if enabled.
void OnGraphInstantiated(const void* graph, uint32_t graph_id, const void* graph_exec,
                         uint32_t graph_exec_id) {
  {
    const std::lock_guard<std::mutex> lock(g_graph_ids_lock);
    g_graph_ids[graph] = graph_id;
    g_graph_exec_ids[graph_exec] = graph_exec_id;
  }
  const CUpti_CallbackFunc callback = g_subscriber_callback.load(std::memory_order_acquire);
  if (callback == nullptr || !g_graph_exec_created_enabled.load(std::memory_order_acquire)) {
    return;
  }
  CUpti_GraphData graph_data{};
  graph_data.graph = reinterpret_cast<CUgraph>(const_cast<void*>(graph));
  graph_data.graphExec = reinterpret_cast<CUgraphExec>(const_cast<void*>(graph_exec));
  CUpti_ResourceData data{};
  data.context = reinterpret_cast<CUcontext>(&g_context);
  data.resourceDescriptor = &graph_data;
  const std::lock_guard<std::recursive_mutex> lock(g_callback_lock);
  callback(g_subscriber_userdata.load(std::memory_order_acquire), CUPTI_CB_DOMAIN_RESOURCE,
           CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, &data);
}

const FakeActivitySink kSink = {OnQueued,         OnCalled,      OnKernel,           OnMemcpy,
                                OnPeerMemcpy,     OnEventRecord, OnStreamWait,       OnMemory,
                                OnContextCreated, OnGraphReplay, OnGraphInstantiated};

void RegisterSink() {
  void* cudart = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
  if (cudart == nullptr) return;
  using SetSink = void (*)(const FakeActivitySink*);
  if (const auto set_sink = reinterpret_cast<SetSink>(dlsym(cudart, "fakeCudartSetActivitySink"))) {
    set_sink(&kSink);
  }
  dlclose(cudart);  // drops only the reference RTLD_NOLOAD took
}

// The devices of the fake runtime (FAKE_CUDA_DEVICES), asked of the loaded libcudart.so.13's own
// cudaGetDeviceCount (dlsym on its handle, so no interposer sees the call); 0 when the process
// has not loaded it.
int FakeDeviceCount() {
  void* cudart = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
  if (cudart == nullptr) return 0;
  using GetDeviceCount = int (*)(int*);  // cudaError_t is an int-sized enum
  int count = 0;
  const auto get_count = reinterpret_cast<GetDeviceCount>(dlsym(cudart, "cudaGetDeviceCount"));
  if (get_count == nullptr || get_count(&count) != 0) count = 0;
  dlclose(cudart);
  return count;
}

// CUPTI writes one DEVICE record per GPU when the kind is enabled. Each fake GPU's UUID is
// fa4ec0de-0000-0000-0000-0000000000NN, NN its ordinal (nvidia-smi: "GPU-fa4ec0de-..."); the
// rest is the same for every fake GPU.
constexpr char kFakeDeviceName[] = "Fake GPU (CPU stand-in)";
constexpr uint64_t kFakeDeviceMemoryBytes = 80ull << 30;
constexpr uint32_t kFakeDeviceMultiprocessors = 132;

void WriteDeviceRecords() {
  const int count = FakeDeviceCount();
  for (int device = 0; device < count; ++device) {
    CUpti_ActivityDevice5 record{};
    record.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    record.id = static_cast<uint32_t>(device);
    const unsigned char prefix[] = {0xfa, 0x4e, 0xc0, 0xde};
    std::memcpy(record.uuid.bytes, prefix, sizeof(prefix));
    record.uuid.bytes[14] = static_cast<char>(device >> 8);
    record.uuid.bytes[15] = static_cast<char>(device & 0xff);
    // As CUPTI does, the name is allocated for the client, which may free it.
    record.name = strdup(kFakeDeviceName);
    record.isCudaVisible = 1;
    record.computeCapabilityMajor = 9;
    record.computeCapabilityMinor = 0;
    record.globalMemorySize = kFakeDeviceMemoryBytes;
    record.numMultiprocessors = kFakeDeviceMultiprocessors;
    record.gpuInstanceId = record.computeInstanceId = UINT32_MAX;  // MIG off
    Write(record);
  }
}

}  // namespace

ActivityBuffers& Buffers() {
  // Never destroyed: stream workers may still report while the process exits.
  static ActivityBuffers* const buffers = new ActivityBuffers();
  return *buffers;
}

CUptiResult EnableKind(CUpti_ActivityKind kind) {
  if (kind <= CUPTI_ACTIVITY_KIND_INVALID || kind >= CUPTI_ACTIVITY_KIND_COUNT) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  static std::once_flag registered;
  std::call_once(registered, RegisterSink);
  const std::lock_guard<std::recursive_mutex> lock(g_callback_lock);
  const bool was_enabled = g_enabled[kind].exchange(true, std::memory_order_relaxed);
  if (kind == CUPTI_ACTIVITY_KIND_DEVICE && !was_enabled) WriteDeviceRecords();
  return CUPTI_SUCCESS;
}

CUptiResult DisableKind(CUpti_ActivityKind kind) {
  if (kind <= CUPTI_ACTIVITY_KIND_INVALID || kind >= CUPTI_ACTIVITY_KIND_COUNT) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  const std::lock_guard<std::recursive_mutex> lock(g_callback_lock);
  g_enabled[kind].store(false, std::memory_order_relaxed);
  return CUPTI_SUCCESS;
}

bool KindEnabled(CUpti_ActivityKind kind) {
  return kind > CUPTI_ACTIVITY_KIND_INVALID && kind < CUPTI_ACTIVITY_KIND_COUNT && Enabled(kind);
}

CUptiResult EnableApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, bool enable) {
  if (CallbackName(domain, cbid) == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  const std::lock_guard<std::recursive_mutex> lock(g_callback_lock);
  auto& apis = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? g_runtime_apis[cbid] : g_driver_apis[cbid];
  if (apis.exchange(enable) != enable && AnotherThreadQueued()) {
    std::fprintf(stderr,
                 "fake CUPTI: the record of %s switched %s while another thread queues work\n",
                 CallbackName(domain, cbid), enable ? "on" : "off");
    std::abort();
  }
  return CUPTI_SUCCESS;
}

size_t SelectedApiCount() {
  size_t n = 0;
  for (const auto& api : g_runtime_apis) n += api.load(std::memory_order_relaxed) ? 1 : 0;
  for (const auto& api : g_driver_apis) n += api.load(std::memory_order_relaxed) ? 1 : 0;
  return n;
}

const char* CallbackName(CUpti_CallbackDomain domain, uint32_t cbid) {
  const auto find = [cbid](const auto& table) -> const char* {
    for (const auto& row : table) {
      if (row.cbid == cbid) return row.name;
    }
    return nullptr;
  };
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return find(kRuntimeCallbackNames);
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return find(kDriverCallbackNames);
  return nullptr;
}

void DeliverOneLaunch() {
  WriteRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, NextCorrelationId(),
                   standins::MonotonicNs());
  Buffers().Flush(true);
}

void SetSubscriberCallback(CUpti_CallbackFunc callback, void* userdata) {
  g_subscriber_userdata.store(userdata, std::memory_order_release);
  g_subscriber_callback.store(callback, std::memory_order_release);
}

void EnableContextCreatedCallback(bool enable) {
  g_context_created_enabled.store(enable, std::memory_order_release);
}

void EnableGraphExecCreatedCallback(bool enable) {
  g_graph_exec_created_enabled.store(enable, std::memory_order_release);
}

CUptiResult GraphId(const void* handle, bool exec, uint32_t* id) {
  if (handle == nullptr || id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  const std::lock_guard<std::mutex> lock(g_graph_ids_lock);
  const auto& ids = exec ? g_graph_exec_ids : g_graph_ids;
  const auto found = ids.find(handle);
  if (found == ids.end()) return CUPTI_ERROR_INVALID_PARAMETER;
  *id = found->second;
  return CUPTI_SUCCESS;
}

void SetTimestampCallback(CUpti_TimestampCallbackFunc callback) {
  g_timestamp.store(callback, std::memory_order_release);
}

CUptiResult PushExternalId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  t_external_ids[kind].push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult PopExternalId(CUpti_ExternalCorrelationKind kind, uint64_t* last_id) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  if (t_external_ids[kind].empty()) return CUPTI_ERROR_QUEUE_EMPTY;
  if (last_id != nullptr) *last_id = t_external_ids[kind].back();
  t_external_ids[kind].pop_back();
  return CUPTI_SUCCESS;
}

}  // namespace fake_cupti
