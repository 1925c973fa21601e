#include "cupti/gpu_capture.h"

#include <cupti.h>
#include <time.h>

#include <cstdlib>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/deep_schedule.h"
#include "cupti/activity_buffers.h"
#include "cupti/activity_drain.h"
#include "cupti/api_selection.h"
#include "cupti/capture_plan.h"
#include "cupti/cupti_gate.h"
#include "cupti/cupti_library.h"
#include "cupti/device_memory_sampler.h"
#include "cupti/graph_nodes.h"
#include "cupti/launch_cost.h"
#include "cupti/recorded_spans.h"
#include "interpose/core/clock.h"
#include "interpose/core/load_order.h"
#include "interpose/core/log.h"
#include "interpose/core/runtime.h"
#include "interpose/core/trace_writer.h"
#include "vprof_trace_fields.h"

namespace vprof {

std::atomic<bool> g_gpu_capture_active{false};

namespace {

namespace sf = schema;

// Everything the writer reports about capture; changed under g_status_lock
// (never held across a CUPTI call), written out when generation moves.
struct Status {
  int32_t state = 0;
  std::string detail, cupti_path, cuda_injection_found;
  uint32_t cupti_version = 0;
  std::vector<std::string> kinds;
  std::string mode;
  int32_t api_records = 0;
  uint32_t selected_runtime_apis = 0, selected_driver_apis = 0;
  int32_t hw_trace = 0;
  std::string hw_trace_detail;
  std::optional<LaunchCost> launch_cost;
  uint32_t buffers_unread_at_exit = 0;
  uint64_t generation = 0;
};
LoadFirst<std::mutex> g_status_lock VPROF_LOAD_FIRST;
LoadFirst<Status> g_status VPROF_LOAD_FIRST;
uint64_t g_status_written = 0;  // flush lock held (any thread that drains)

LoadFirst<CuptiLibrary> g_cupti VPROF_LOAD_FIRST;
std::atomic<uint64_t> g_next_call_id{0};

// What deep windows enable and disable (RecordGpuActivity): the capture
// plan, set once by Start(). Under VPROF_DEEP=always the plan is enabled at
// start and stays on.
LoadFirst<CapturePlan> g_plan VPROF_LOAD_FIRST;
bool g_windowed = false;                 // set by Start(), then read only
std::atomic<bool> g_activity_on{false};  // the plan's kinds are enabled now
// Held while the plan is switched: by the writer thread opening and closing
// deep windows and at the capture window's end, and across the whole
// launch-cost calibration, which switches it ten times on the thread creating
// the first context, inside CUPTI's context-created callback. Held across
// CUPTI and driver calls. CUPTI may hold a lock of its own across that
// callback which switching a kind also takes (undocumented): a switch then
// holds this lock and waits on CUPTI's, so the calibration tries this one for
// kCalibrationWaitNs only and is skipped if it must (TryLockSwitching: a
// timed mutex's wait is not one ThreadSanitizer follows). The exit handler
// does not take it.
LoadFirst<std::mutex> g_switch_lock VPROF_LOAD_FIRST;
constexpr uint64_t kCalibrationWaitNs = 250000000;

bool TryLockSwitching(std::unique_lock<std::mutex>& switching, uint64_t wait_ns) {
  return PollUntil(NowNs() + wait_ns, 100000, [&] { return switching.try_lock(); });
}
std::atomic<bool> g_launch_cost_taken{false};  // once per process
// Set when the capture window ends (StopGpuRecording). A Start() after it
// enables nothing; one still enabling kinds then switches them off itself.
// Sequentially consistent, as g_gpu_capture_active's store in Start() is:
// either Start() sees it set or StopGpuRecording sees capture active.
std::atomic<bool> g_recording_stopped{false};
// Under a deep schedule, when the kinds were on (recorded_spans.h): written
// as windows open and close, read as buffers are drained, both under
// g_spans_lock, which is held across no call.
LoadFirst<std::mutex> g_spans_lock VPROF_LOAD_FIRST;
LoadFirst<RecordedSpans> g_spans VPROF_LOAD_FIRST;

// The exit handler (EndGpuCaptureAtExit) closes these before libcupti's
// teardown (cupti_gate.h). g_recording_gate: calls that switch or flush
// recording after Start(), closed first; g_reading_gate: the reading of filled
// buffers (libcupti's record iterator, its API names, kernel names it owns),
// closed once the last buffers were read. A buffer handed over after that is
// left unread and counted (Status::buffers_unread_at_exit). Constant-
// initialised and trivially destructible: valid in every exit handler.
constinit CuptiGate g_recording_gate, g_reading_gate;
static_assert(std::is_trivially_destructible_v<CuptiGate>);
// Set once Start() registered CUPTI's buffer callbacks in this process (not in
// a forked child): from then on buffers may wait at exit, so the exit handler
// runs even where capture failed or was switched off since.
std::atomic<bool> g_started{false};
// In a forked child: CUPTI's state is the parent's copy, and so are any
// buffers it hands over (returned at once, unread).
std::atomic<bool> g_forked_child{false};
// Set as Start() begins: from then this process's CUDA has started under vprof,
// and a child forked after it may hold a copy of CUPTI. A child forked before
// (vLLM's engine forks its workers before any CUDA call) starts its own.
std::atomic<bool> g_start_entered{false};

void SetState(int32_t state, const std::string& detail) {
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->state = state;
  g_status->detail = detail;
  ++g_status->generation;
}

std::string ResultString(CUptiResult r) {
  const char* s = nullptr;
  if (g_cupti->cuptiGetResultString && g_cupti->cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) {
    return s;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

uint64_t CUPTIAPI TraceClock() { return NowNs(); }

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = TakeFreeBuffer();
  *size = *buffer ? kActivityBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI OnBufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t,
                                size_t valid) {
  if (!buffer) return;
  if (g_forked_child.load()) {
    ReturnBuffer(buffer);
    return;
  }
  size_t dropped = 0;
  g_cupti->cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
  QueueFilledBuffer({buffer, valid, dropped});
}

int32_t ApiRecordsValue(ApiRecords records) {
  switch (records) {
    case ApiRecords::kAll:
      return sf::ApiRecords::API_RECORDS_ALL;
    case ApiRecords::kSelected:
      return sf::ApiRecords::API_RECORDS_SELECTED;
    case ApiRecords::kNone:
      break;
  }
  return sf::ApiRecords::API_RECORDS_NONE;
}

struct HwTraceResult {
  int32_t state = 0;
  std::string detail;
  bool too_early = false;  // CUPTI answered NOT_INITIALIZED: worth asking again
};

// Set when CUPTI answered that the driver is not initialised yet; the writer
// thread asks again (RetryHwTrace).
std::atomic<bool> g_hw_trace_retry{false};

// Hardware-event kernel timestamps where the GPU has them (Blackwell); CUPTI
// refuses elsewhere, and kernels keep its usual timestamps. Asked before any
// kernel kind is enabled. Inside InitializeInjection the driver is still in
// cuInit, and CUPTI 13 answers NOT_INITIALIZED there (seen on an H200): then
// the writer thread asks again once the program runs.
HwTraceResult EnableHwTrace() {
  if (!g_cupti->cuptiActivityEnableHWTrace) {
    return {sf::HwTrace::HW_TRACE_UNAVAILABLE, "this libcupti has no cuptiActivityEnableHWTrace"};
  }
  const CUptiResult r = g_cupti->cuptiActivityEnableHWTrace(1);
  if (r == CUPTI_SUCCESS) return {sf::HwTrace::HW_TRACE_ON, ""};
  return {sf::HwTrace::HW_TRACE_NOT_SUPPORTED, ResultString(r), r == CUPTI_ERROR_NOT_INITIALIZED};
}

// Writer thread: the second and last request for hardware timestamps.
void RetryHwTrace() {
  if (!g_hw_trace_retry.exchange(false, std::memory_order_relaxed)) return;
  const CuptiGate::Pass pass(g_recording_gate);
  if (!pass.open()) return;
  const HwTraceResult hw = EnableHwTrace();
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->hw_trace = hw.state;
  g_status->hw_trace_detail = hw.detail;
  ++g_status->generation;
}

// Whether libcupti takes GRAPH_TRACE (true when the plan lacks it): an older
// one refuses the kind, and the plan then records each node. Asked before the
// plan is enabled; a kind taken is switched off again for the plan to set.
bool WholeGraphRecordsAccepted(const CapturePlan& plan) {
  for (const ActivityKind& k : plan.kinds) {
    if (k.kind != CUPTI_ACTIVITY_KIND_GRAPH_TRACE) continue;
    if (g_cupti->cuptiActivityEnable(k.kind) != CUPTI_SUCCESS) return false;
    g_cupti->cuptiActivityDisable(k.kind);
  }
  return true;
}

// Enables (on) or disables the capture plan's selected API records. Only
// where no other thread can be inside a launch: in InitializeInjection, and in
// the calibration at the first context's creation. Switched while other
// threads launch (deep windows did), CUPTI 13.0 crashed in a launch about
// once in 6,000 switches on an H200 (bench/RESULTS.md, 2026-12-04 (a36dbc4)).
// A refused API record only warns.
void SetSelectedApisEnabled(bool on, ApiSelection* selection) {
  if (g_plan->api_records != ApiRecords::kSelected) return;
  *selection = EnableSelectedApis(*g_cupti, on);
  if (!selection->error.empty()) VPROF_WARN_ONCE("GPU capture: {}", selection->error);
}

// The kinds never switched off while the program runs, as the selected API
// records are not: DEVICE (its records are written when it is enabled, once
// per GPU) and RUNTIME and DRIVER, the API records of `all`. Under a deep
// schedule Start() enables them, and the writer leaves out the API records
// that began between windows, as it does the selected ones.
bool NeverSwitchedOff(CUpti_ActivityKind kind) {
  return kind == CUPTI_ACTIVITY_KIND_DEVICE || RecordsApiCalls(kind);
}

// Enables (on) or disables every kind of the capture plan: what deep windows
// switch. Switching kernel records alone showed no crash in about 11,000
// switches where switching API records did (above). Under a deep schedule
// the kinds NeverSwitchedOff are left as they are. Returns CUPTI's first
// refusal.
CUptiResult SetKindsEnabled(bool on) {
  for (const ActivityKind& k : g_plan->kinds) {
    if (g_windowed && NeverSwitchedOff(k.kind)) continue;
    const CUptiResult r =
        on ? g_cupti->cuptiActivityEnable(k.kind) : g_cupti->cuptiActivityDisable(k.kind);
    if (r != CUPTI_SUCCESS) return r;
  }
  g_activity_on.store(on, std::memory_order_release);
  return CUPTI_SUCCESS;
}

// The whole plan: its API records, then its kinds.
CUptiResult SetPlanEnabled(bool on, ApiSelection* selection) {
  SetSelectedApisEnabled(on, selection);
  return SetKindsEnabled(on);
}

// The process's first CUDA context was just created: measure what recording
// adds to a launch (launch_cost.h) before the program can use it.
void MeasureLaunchCostIn(CUcontext ctx) {
  LaunchCost cost;
  std::unique_lock<std::mutex> switching(*g_switch_lock, std::defer_lock);
  if (!TryLockSwitching(switching, kCalibrationWaitNs)) {
    cost.failure =
        "recording was being switched (a deep window, or the capture window's end) for " +
        std::to_string(kCalibrationWaitNs / 1000000) + " ms as the first CUDA context was created";
  } else {
    ApiSelection selection;
    cost = MeasureLaunchCost(
        ctx, [&](bool on) { return SetPlanEnabled(on, &selection) == CUPTI_SUCCESS; },
        g_activity_on.load(std::memory_order_acquire));
    // Between deep windows the API records stay on (SetSelectedApisEnabled).
    if (g_windowed) SetSelectedApisEnabled(true, &selection);
    switching.unlock();
  }
  if (cost.failure.empty()) {
    LogDebug(
        "a launch takes {} ns recorded, {} ns not; a kernel {} ns on the GPU recorded, {} "
        "ns not",
        cost.traced_launch_ns, cost.bare_launch_ns, cost.traced_kernel_gpu_ns,
        cost.bare_kernel_gpu_ns);
  } else {
    LogDebug("launch cost not measured: {}", cost.failure);
  }
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->launch_cost = std::move(cost);
  ++g_status->generation;
}

// The driver's graph functions, looked up at the first graph's instantiation
// (the callback's thread; later ones read them once g_graph_driver_state says
// so). Never looked up again after a failure.
enum class GraphDriverState : uint8_t { kUnknown, kFound, kMissing };
std::atomic<GraphDriverState> g_graph_driver_state{GraphDriverState::kUnknown};
LoadFirst<std::mutex> g_graph_driver_lock VPROF_LOAD_FIRST;  // the lookup only
LoadFirst<GraphDriver> g_graph_driver VPROF_LOAD_FIRST;

bool GraphDriverFound() {
  GraphDriverState state = g_graph_driver_state.load(std::memory_order_acquire);
  if (state == GraphDriverState::kUnknown) {
    std::lock_guard<std::mutex> lock(*g_graph_driver_lock);
    state = g_graph_driver_state.load(std::memory_order_relaxed);
    if (state == GraphDriverState::kUnknown) {
      std::string error;
      state = FindGraphDriver(&*g_graph_driver, &error) ? GraphDriverState::kFound
                                                        : GraphDriverState::kMissing;
      if (!error.empty()) LogDebug("CUDA graphs' node lists not read: {}", error);
      g_graph_driver_state.store(state, std::memory_order_release);
    }
  }
  return state == GraphDriverState::kFound;
}

// CUPTI's GRAPHEXEC_CREATED, on the thread instantiating the graph: its node
// list, read once, queued for the writer. Nothing escapes into CUPTI.
void NoteGraphInstantiated(const CUpti_ResourceData* resource) {
  const auto* graph = static_cast<const CUpti_GraphData*>(resource->resourceDescriptor);
  if (graph == nullptr || graph->graph == nullptr || !GraphDriverFound()) return;
  try {
    GraphNodeList list = ReadGraphNodes(*g_graph_driver, graph->graph);
    if (g_cupti->cuptiGetGraphId) g_cupti->cuptiGetGraphId(graph->graph, &list.graph_id);
    if (g_cupti->cuptiGetGraphExecId && graph->graphExec != nullptr) {
      g_cupti->cuptiGetGraphExecId(graph->graphExec, &list.graph_exec_id);
    }
    QueueGraphNodeList(std::move(list));
  } catch (const std::bad_alloc&) {
    CountUnqueuedGraphNodeList();
  }
}

// The subscription claims CUPTI, so that a second tool is told, and vprof
// learns when it is the second. Its callbacks: the creation of a context,
// and, where replays are recorded whole, the instantiation of a graph.
void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                         const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  if (!g_gpu_capture_active.load(std::memory_order_acquire)) return;
  if (id == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
    NoteGraphInstantiated(static_cast<const CUpti_ResourceData*>(data));
    return;
  }
  if (id != CUPTI_CBID_RESOURCE_CONTEXT_CREATED) return;
  if (g_launch_cost_taken.exchange(true)) return;
  MeasureLaunchCostIn(static_cast<const CUpti_ResourceData*>(data)->context);
}

// Registered with atexit once CUPTI's buffer callbacks are, so that it runs
// before libcupti's static objects are destroyed: exit runs its handlers in
// the reverse order of their registration, and libcupti registered its
// destructors as it was loaded. Ends capture for the program's threads (NCCL
// calls' correlation, the calibration), closes the recording gate, waiting at
// most 2 s for a call inside it to leave; while the trace is still being
// written, asks CUPTI for its last records and writes them out at once,
// within the exit's bound on writes (the trace's final drain, runtime.cc's
// exit handler, comes after the teardown); then closes the reading gate,
// waiting at most 2 s more for a buffer being read (only the reading: a
// drain writes its file outside it).
void EndGpuCaptureAtExit() {
  if (!g_started.load()) return;  // a forked child
  g_gpu_capture_active.store(false);
  if (g_recording_gate.Close(NowNs() + 2000000000ull) && TraceOpen(g_run_state.load())) {
    g_cupti->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    FlushTraceAtExit();
  }
  g_reading_gate.Close(NowNs() + 2000000000ull);
}

// g_switch_lock held: disables the kinds that can be switched while the
// program runs (not the API records: NeverSwitchedOff).
void DisableSwitchableKinds() {
  for (const ActivityKind& k : g_plan->kinds) {
    if (!NeverSwitchedOff(k.kind)) g_cupti->cuptiActivityDisable(k.kind);
  }
  g_activity_on.store(false, std::memory_order_release);
}

// Switches off for the rest of the process the kinds that can be (not the
// API records: NeverSwitchedOff), and GPU capture with them.
void SwitchOffForGood() {
  const CuptiGate::Pass pass(g_recording_gate);
  if (!pass.open()) return;
  std::lock_guard<std::mutex> switching(*g_switch_lock);
  DisableSwitchableKinds();
  g_gpu_capture_active.store(false, std::memory_order_release);
}

// A start refused part way (CUPTI declined a kind after others were on):
// whatever it switched on goes off, so that the program does not pay for
// records nobody reads. In InitializeInjection, as SetSelectedApisEnabled
// requires. Every kind of the plan is disabled (disabling one that is off
// does nothing); the API records only if they were selected.
void SwitchOffAfterFailedStart(bool apis_selected) {
  for (const ActivityKind& k : g_plan->kinds) g_cupti->cuptiActivityDisable(k.kind);
  if (!apis_selected) return;
  ApiSelection deselected;
  SetSelectedApisEnabled(false, &deselected);
}

void Start(const GpuKinds& kinds, const DeepSchedule& deep) {
  g_start_entered.store(true);
  if (g_recording_stopped.load()) {
    LogDebug("CUDA started after the capture window ended: GPU capture stays off");
    return;
  }
  CapturePlan plan = PlanCapture(kinds);
  std::string error;
  if (!LoadCupti(&*g_cupti, &error)) {
    SetState(sf::GpuCaptureState::GPU_CAPTURE_UNAVAILABLE, error);
    VPROF_WARN_ONCE("GPU capture unavailable: {}", error);
    return;
  }
  uint32_t version = 0;
  g_cupti->cuptiGetVersion(&version);
  {
    std::lock_guard<std::mutex> lock(*g_status_lock);
    g_status->cupti_path = g_cupti->path;
    g_status->cupti_version = version;
  }
  CUpti_SubscriberHandle subscriber;
  CUptiResult r = g_cupti->cuptiSubscribe(&subscriber, OnCallback, nullptr);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    SetState(sf::GpuCaptureState::GPU_CAPTURE_SUBSCRIBER_CONFLICT,
             "another tool holds CUPTI (torch.profiler, Nsight, a sanitizer?); NCCL capture "
             "goes on without GPU activity");
    VPROF_WARN_ONCE("CUPTI is already in use by another tool; GPU capture is off, NCCL capture on");
    return;
  }
  if (r != CUPTI_SUCCESS) {
    SetState(sf::GpuCaptureState::GPU_CAPTURE_FAILED, "cuptiSubscribe: " + ResultString(r));
    VPROF_WARN_ONCE("GPU capture off: cuptiSubscribe: {}", ResultString(r));
    return;
  }
  // Without it vprof only lacks its launch cost (the report says so).
  if (g_cupti->cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                   CUPTI_CBID_RESOURCE_CONTEXT_CREATED) != CUPTI_SUCCESS) {
    g_launch_cost_taken.store(true);
  }
  // GPU timestamps converted by CUPTI onto the trace clock.
  r = g_cupti->cuptiActivityRegisterTimestampCallback(TraceClock);
  if (r == CUPTI_SUCCESS) {
    r = g_cupti->cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  }
  // From here CUPTI may hand buffers over, even if a kind is refused below.
  if (r == CUPTI_SUCCESS) {
    g_started.store(true);
    if (std::atexit(EndGpuCaptureAtExit) != 0) {
      LogDebug("no exit handler for GPU capture: the trace's last GPU records may be lost");
    }
  }
  if (plan.api_records == ApiRecords::kSelected &&
      (!g_cupti->cuptiActivityEnableRuntimeApi || !g_cupti->cuptiActivityEnableDriverApi)) {
    // A libcupti that cannot select APIs: every call, as before the light plan.
    RecordEveryApi(&plan);
  }
  const HwTraceResult hw = r == CUPTI_SUCCESS ? EnableHwTrace() : HwTraceResult{};
  g_hw_trace_retry.store(hw.too_early, std::memory_order_relaxed);
  g_windowed = deep.mode != DeepSchedule::Mode::kAlways;
  // A deep window is for detail: each node of a graph gets its own records. So
  // does every graph where libcupti does not know whole-graph records.
  if (g_windowed) {
    RecordGraphNodes(&plan);
  } else if (r == CUPTI_SUCCESS && !WholeGraphRecordsAccepted(plan)) {
    LogDebug("libcupti refused GRAPH_TRACE: CUDA-graph replays recorded node by node");
    RecordGraphNodes(&plan);
  } else if (RecordsGraphsWhole(plan) &&
             g_cupti->cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                          CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) != CUPTI_SUCCESS) {
    // Replays are still recorded whole; the reporter then cannot tell their steps.
    LogDebug("no graph instantiation callback: CUDA graphs' node lists not read");
  }
  *g_plan = plan;
  // Under a deep schedule the kinds NeverSwitchedOff are on from here.
  for (const ActivityKind& k : plan.kinds) {
    if (r != CUPTI_SUCCESS || !g_windowed || !NeverSwitchedOff(k.kind)) continue;
    r = g_cupti->cuptiActivityEnable(k.kind);
  }
  // The API records stay on from here, between deep windows too: windows
  // switch the kinds only (SetSelectedApisEnabled).
  ApiSelection selection;
  const bool apis_selected = r == CUPTI_SUCCESS;
  if (apis_selected) SetSelectedApisEnabled(true, &selection);
  if (r == CUPTI_SUCCESS && !g_windowed) r = SetKindsEnabled(true);
  std::vector<std::string> enabled;
  for (const ActivityKind& k : plan.kinds) enabled.emplace_back(k.name);
  if (r != CUPTI_SUCCESS) {
    SwitchOffAfterFailedStart(apis_selected);
    SetState(sf::GpuCaptureState::GPU_CAPTURE_FAILED,
             "enabling CUPTI activity: " + ResultString(r));
    VPROF_WARN_ONCE("GPU capture off: enabling CUPTI activity: {}", ResultString(r));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(*g_status_lock);
    g_status->kinds = enabled;
    g_status->mode = plan.mode;
    g_status->api_records = ApiRecordsValue(plan.api_records);
    g_status->selected_runtime_apis = selection.runtime;
    g_status->selected_driver_apis = selection.driver;
    g_status->hw_trace = hw.state;
    g_status->hw_trace_detail = hw.detail;
  }
  SetState(sf::GpuCaptureState::GPU_CAPTURE_ACTIVE, "");
  g_gpu_capture_active.store(true);
  if (g_recording_stopped.load()) SwitchOffForGood();  // the window ended meanwhile
  LogDebug("GPU capture on through {}", g_cupti->path);
}

void PutStatus(TraceWriter& w, const Status& s) {
  ProtoEncoder& enc = w.encoder();
  auto t = w.BeginPacket(sf::TracePacket::kGpuCapture);
  namespace f = sf::GpuCaptureStatus;
  enc.AddVarint(f::kState, static_cast<uint64_t>(s.state));
  if (!s.detail.empty()) enc.AddString(f::kDetail, s.detail);
  if (!s.cupti_path.empty()) enc.AddString(f::kCuptiPath, s.cupti_path);
  if (s.cupti_version) enc.AddVarint(f::kCuptiVersion, s.cupti_version);
  if (s.state == sf::GpuCaptureState::GPU_CAPTURE_ACTIVE) {
    enc.AddString(f::kTimestampSource, "cupti_timestamp_callback");
  }
  if (!s.cuda_injection_found.empty()) {
    enc.AddString(f::kCudaInjectionFound, s.cuda_injection_found);
  }
  for (const auto& k : s.kinds) enc.AddString(f::kActivityKinds, k);
  if (s.api_records) enc.AddVarint(f::kApiRecords, static_cast<uint64_t>(s.api_records));
  if (s.selected_runtime_apis) enc.AddVarint(f::kSelectedRuntimeApis, s.selected_runtime_apis);
  if (s.selected_driver_apis) enc.AddVarint(f::kSelectedDriverApis, s.selected_driver_apis);
  if (!s.mode.empty()) enc.AddString(f::kCaptureMode, s.mode);
  if (s.hw_trace) enc.AddVarint(f::kHwTrace, static_cast<uint64_t>(s.hw_trace));
  if (s.buffers_unread_at_exit) enc.AddVarint(f::kBuffersUnreadAtExit, s.buffers_unread_at_exit);
  if (!s.hw_trace_detail.empty()) enc.AddString(f::kHwTraceDetail, s.hw_trace_detail);
  if (s.launch_cost) {
    namespace c = sf::LaunchCostCalibration;
    const LaunchCost& cost = *s.launch_cost;
    const size_t nested = enc.BeginNested(f::kLaunchCost);
    if (cost.failure.empty()) {
      enc.AddVarint(c::kRounds, cost.rounds);
      enc.AddVarint(c::kLaunchesPerRound, cost.launches_per_round);
      enc.AddVarint(c::kBareLaunchNs, cost.bare_launch_ns);
      enc.AddVarint(c::kTracedLaunchNs, cost.traced_launch_ns);
      if (cost.gpu_failure.empty()) {
        enc.AddVarint(c::kBareKernelGpuNs, cost.bare_kernel_gpu_ns);
        enc.AddVarint(c::kTracedKernelGpuNs, cost.traced_kernel_gpu_ns);
      } else {
        enc.AddString(c::kGpuFailure, cost.gpu_failure);
      }
    } else {
      enc.AddString(c::kFailure, cost.failure);
    }
    enc.AddVarint(c::kBeginNs, cost.begin_ns);
    enc.AddVarint(c::kEndNs, cost.end_ns);
    enc.EndNested(nested);
  }
  w.EndPacket(t);
}

// Flush lock held: the GpuCaptureStatus, if it changed since it was last
// written. False when the trace cannot be written.
bool PutChangedStatus(TraceWriter& w) {
  Status status;
  {
    std::lock_guard<std::mutex> lock(*g_status_lock);
    if (g_status->generation == g_status_written) return true;
    status = *g_status;
    g_status_written = g_status->generation;
  }
  if (!w.EnsureRoom(4096)) return false;
  PutStatus(w, status);
  return true;
}

// Once the reading gate is closed: the filled buffers, returned unread and
// counted in the status.
void CountUnreadBuffers() {
  uint32_t unread = 0;
  FilledBuffer b;
  while (PopFilledBuffer(&b)) {
    ReturnBuffer(b.data);
    ++unread;
  }
  if (unread == 0) return;
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->buffers_unread_at_exit += unread;
  ++g_status->generation;
}

}  // namespace

void StartGpuCapture(const GpuKinds& kinds, const DeepSchedule& deep) {
  static std::once_flag once;
  std::call_once(once, [&] { Start(kinds, deep); });
}

bool RecordGpuActivity(bool on, uint64_t at_ns) {
  if (!g_gpu_capture_active.load(std::memory_order_acquire)) return false;
  const CuptiGate::Pass pass(g_recording_gate);
  if (!pass.open()) return false;
  std::unique_lock<std::mutex> switching(*g_switch_lock);
  if (g_activity_on.load(std::memory_order_acquire) == on) return true;
  {
    std::lock_guard<std::mutex> lock(*g_spans_lock);
    if (on) {
      g_spans->Open(at_ns);
    } else {
      g_spans->Close(at_ns);
    }
  }
  const CUptiResult r = SetKindsEnabled(on);
  if (r != CUPTI_SUCCESS) {
    // Refused part way: what the switch turned on goes off, and the window
    // ends here (the API records, never switched, are left out from now on).
    DisableSwitchableKinds();
    if (on) {
      std::lock_guard<std::mutex> lock(*g_spans_lock);
      g_spans->Close(at_ns);
    }
    g_gpu_capture_active.store(false, std::memory_order_release);
  }
  switching.unlock();
  if (r != CUPTI_SUCCESS) {
    SetState(sf::GpuCaptureState::GPU_CAPTURE_FAILED,
             std::string(on ? "opening" : "closing") + " a deep window: " + ResultString(r));
    VPROF_WARN_ONCE("GPU capture off: {} a deep window: {}", on ? "opening" : "closing",
                    ResultString(r));
    return false;
  }
  // Records of the window's last work are in CUPTI's buffers until flushed.
  if (!on) g_cupti->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  return true;
}

void StopGpuRecording() {
  g_recording_stopped.store(true);
  if (g_gpu_capture_active.load()) SwitchOffForGood();
}

void NoteCudaInjection(const char* found_value) {
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->cuda_injection_found = found_value ? found_value : "";
  ++g_status->generation;
}

std::atomic<bool> g_wanted{true};

void NoteGpuCaptureUnavailable(const char* why) {
  g_wanted.store(false);
  SetState(sf::GpuCaptureState::GPU_CAPTURE_UNAVAILABLE, why);
}

bool GpuCaptureWanted() { return g_wanted.load(); }

void ResetGpuCaptureInChild() {
  g_status_lock.RenewInChild();
  g_switch_lock.RenewInChild();
  g_spans_lock.RenewInChild();
  ResetBuffersInChild();
  GlobalDeviceMemorySampler().ResetInChild();
  // Forked before CUDA started here: the child's own CUDA will call the injection hook, and
  // its GPU capture starts then, as in any process.
  if (!g_start_entered.load()) return;
  g_gpu_capture_active.store(false);
  g_started.store(false);
  g_forked_child.store(true);
  g_wanted.store(false);
  SetState(sf::GpuCaptureState::GPU_CAPTURE_UNAVAILABLE,
           "forked child: CUPTI belongs to the parent process");
}

uint64_t PushGpuCorrelation() {
  uint64_t id = g_next_call_id.fetch_add(1, std::memory_order_relaxed) + 1;
  g_cupti->cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
  return id;
}

void PopGpuCorrelation() {
  uint64_t last = 0;
  g_cupti->cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

void RequestGpuFlush(bool forced) {
  if (!g_gpu_capture_active.load(std::memory_order_acquire)) return;
  const CuptiGate::Pass pass(g_recording_gate);
  if (pass.open()) g_cupti->cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

const SourceCount kCuptiCount{"cupti", false};
const SourceCount kGraphNodesCount{"cuda_graph_nodes", false};

namespace {

bool WriteGraphNodeLists(TraceWriter& w) {
  const std::vector<GraphNodeList> lists = TakeGraphNodeLists();
  const uint64_t dropped = DroppedGraphNodeLists();
  if (lists.empty() && dropped == 0) return true;
  if (!EncodeGraphNodeLists(w, lists)) return false;
  w.Count(kGraphNodesCount, lists.size(), dropped);
  return true;
}

}  // namespace

bool DrainGpuActivity(TraceWriter& w) {
  if (g_gpu_capture_active.load(std::memory_order_acquire)) RetryHwTrace();
  if (!PutChangedStatus(w)) return false;
  std::optional<RecordedSpans> spans;  // deep windows: API records outside them are left out
  if (g_windowed) {
    std::lock_guard<std::mutex> lock(*g_spans_lock);
    spans = *g_spans;
  }
  for (;;) {
    // Graphs instantiated so far, ahead of the buffer that may hold their
    // replays. Not in a forked child: the queue's lock may be a copy held.
    if (!g_forked_child.load() && !WriteGraphNodeLists(w)) return false;
    FilledBuffer b;
    ReadRecords read;
    {
      const CuptiGate::Pass reading(g_reading_gate);
      if (!reading.open()) {
        // Closed (at exit): what is left is counted now, and said in this
        // drain's trace (the exit's final drain may not get the flush lock
        // from a writer slowed by its file system).
        CountUnreadBuffers();
        return PutChangedStatus(w);
      }
      if (!PopFilledBuffer(&b)) return true;
      read = ReadActivityBuffer(*g_cupti, w, b.data, b.valid_bytes, spans ? &*spans : nullptr);
    }
    const bool ok = EncodeActivityBuffer(w, read, b.dropped, kCuptiCount);
    ReturnBuffer(b.data);
    if (!ok) return false;
  }
}

}  // namespace vprof
