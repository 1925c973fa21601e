#include "gpu_capture.h"

#include <cupti.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "activity_buffers.h"
#include "activity_encoder.h"
#include "api_selection.h"
#include "capture_plan.h"
#include "clock.h"
#include "cupti_library.h"
#include "deep_schedule.h"
#include "device_memory_sampler.h"
#include "launch_cost.h"
#include "load_order.h"
#include "log.h"
#include "trace_writer.h"
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
  uint64_t generation = 0;
};
LoadFirst<std::mutex> g_status_lock VPROF_LOAD_FIRST;
LoadFirst<Status> g_status VPROF_LOAD_FIRST;
uint64_t g_status_written = 0;  // writer thread only

LoadFirst<CuptiLibrary> g_cupti VPROF_LOAD_FIRST;
std::atomic<uint64_t> g_next_call_id{0};

// What deep windows enable and disable (record_gpu_activity): the capture
// plan, set once by start(). Under VPROF_DEEP=always the plan is enabled at
// start and stays on.
LoadFirst<CapturePlan> g_plan VPROF_LOAD_FIRST;
bool g_windowed = false;                 // set by start(), then read only
std::atomic<bool> g_activity_on{false};  // the plan's kinds are enabled now
// Held while the plan is switched: by the writer thread opening and closing
// deep windows, and across the whole launch-cost calibration, which switches
// it ten times on the thread creating the first context. Never taken by a
// CUPTI callback, so it may be held across CUPTI and driver calls.
LoadFirst<std::mutex> g_switch_lock VPROF_LOAD_FIRST;
std::atomic<bool> g_launch_cost_taken{false};  // once per process

void set_state(int32_t state, const std::string& detail) {
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->state = state;
  g_status->detail = detail;
  ++g_status->generation;
}

std::string result_string(CUptiResult r) {
  const char* s = nullptr;
  if (g_cupti->cuptiGetResultString && g_cupti->cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) {
    return s;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

uint64_t CUPTIAPI trace_clock() { return now_ns(); }

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = take_free_buffer();
  *size = *buffer ? kActivityBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI on_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t,
                                  size_t valid) {
  if (!buffer) return;
  size_t dropped = 0;
  g_cupti->cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
  queue_filled_buffer({buffer, valid, dropped});
}

int32_t api_records_value(ApiRecords records) {
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
// thread asks again (retry_hw_trace).
std::atomic<bool> g_hw_trace_retry{false};

// Hardware-event kernel timestamps where the GPU has them (Blackwell); CUPTI
// refuses elsewhere, and kernels keep its usual timestamps. Asked before any
// kernel kind is enabled. Inside InitializeInjection the driver is still in
// cuInit, and CUPTI 13 answers NOT_INITIALIZED there (seen on an H200): then
// the writer thread asks again once the program runs.
HwTraceResult enable_hw_trace() {
  if (!g_cupti->cuptiActivityEnableHWTrace) {
    return {sf::HwTrace::HW_TRACE_UNAVAILABLE, "this libcupti has no cuptiActivityEnableHWTrace"};
  }
  const CUptiResult r = g_cupti->cuptiActivityEnableHWTrace(1);
  if (r == CUPTI_SUCCESS) return {sf::HwTrace::HW_TRACE_ON, ""};
  return {sf::HwTrace::HW_TRACE_NOT_SUPPORTED, result_string(r), r == CUPTI_ERROR_NOT_INITIALIZED};
}

// Writer thread: the second and last request for hardware timestamps.
void retry_hw_trace() {
  if (!g_hw_trace_retry.exchange(false, std::memory_order_relaxed)) return;
  const HwTraceResult hw = enable_hw_trace();
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->hw_trace = hw.state;
  g_status->hw_trace_detail = hw.detail;
  ++g_status->generation;
}

// Enables (on) or disables every kind of the capture plan and its selected
// API records. Under a deep schedule DEVICE is left as it is (see start()).
// Returns CUPTI's first refusal of a kind; a refused API record only warns.
CUptiResult set_plan_enabled(bool on, ApiSelection* selection) {
  const CapturePlan& plan = *g_plan;
  if (plan.api_records == ApiRecords::kSelected) {
    *selection = enable_selected_apis(*g_cupti, on);
    if (!selection->error.empty()) VPROF_WARN_ONCE("GPU capture: {}", selection->error);
  }
  for (const ActivityKind& k : plan.kinds) {
    if (g_windowed && k.kind == CUPTI_ACTIVITY_KIND_DEVICE) continue;
    const CUptiResult r =
        on ? g_cupti->cuptiActivityEnable(k.kind) : g_cupti->cuptiActivityDisable(k.kind);
    if (r != CUPTI_SUCCESS) return r;
  }
  g_activity_on.store(on, std::memory_order_release);
  return CUPTI_SUCCESS;
}

// The process's first CUDA context was just created: measure what recording
// adds to a launch (launch_cost.h) before the program can use it.
void measure_launch_cost_in(CUcontext ctx) {
  LaunchCost cost;
  {
    std::lock_guard<std::mutex> lock(*g_switch_lock);
    ApiSelection selection;
    cost = measure_launch_cost(
        ctx, [&](bool on) { return set_plan_enabled(on, &selection) == CUPTI_SUCCESS; },
        g_activity_on.load(std::memory_order_acquire));
  }
  if (cost.failure.empty()) {
    log().debug(
        "a launch takes {} ns recorded, {} ns not; a kernel {} ns on the GPU recorded, {} "
        "ns not",
        cost.traced_launch_ns, cost.bare_launch_ns, cost.traced_kernel_gpu_ns,
        cost.bare_kernel_gpu_ns);
  } else {
    log().debug("launch cost not measured: {}", cost.failure);
  }
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->launch_cost = std::move(cost);
  ++g_status->generation;
}

// The subscription claims CUPTI, so that a second tool is told, and vprof
// learns when it is the second. Its one enabled callback is the creation of
// a context.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_CONTEXT_CREATED) return;
  if (!g_gpu_capture_active.load(std::memory_order_acquire)) return;
  if (g_launch_cost_taken.exchange(true)) return;
  measure_launch_cost_in(static_cast<const CUpti_ResourceData*>(data)->context);
}

void start(const std::string& kind_list, const DeepSchedule& deep) {
  std::string bad;
  CapturePlan plan = plan_capture(kind_list, &bad);
  if (!bad.empty()) VPROF_WARN_ONCE("{}", bad);
  std::string error;
  if (!load_cupti(&*g_cupti, &error)) {
    set_state(sf::GpuCaptureState::GPU_CAPTURE_UNAVAILABLE, error);
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
  CUptiResult r = g_cupti->cuptiSubscribe(&subscriber, on_callback, nullptr);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    set_state(sf::GpuCaptureState::GPU_CAPTURE_SUBSCRIBER_CONFLICT,
              "another tool holds CUPTI (torch.profiler, Nsight, a sanitizer?); NCCL capture "
              "goes on without GPU activity");
    VPROF_WARN_ONCE("CUPTI is already in use by another tool; GPU capture is off, NCCL capture on");
    return;
  }
  if (r != CUPTI_SUCCESS) {
    set_state(sf::GpuCaptureState::GPU_CAPTURE_FAILED, "cuptiSubscribe: " + result_string(r));
    VPROF_WARN_ONCE("GPU capture off: cuptiSubscribe: {}", result_string(r));
    return;
  }
  // Without it vprof only lacks its launch cost (the report says so).
  if (g_cupti->cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                   CUPTI_CBID_RESOURCE_CONTEXT_CREATED) != CUPTI_SUCCESS) {
    g_launch_cost_taken.store(true);
  }
  // GPU timestamps converted by CUPTI onto the trace clock.
  r = g_cupti->cuptiActivityRegisterTimestampCallback(trace_clock);
  if (r == CUPTI_SUCCESS) {
    r = g_cupti->cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  }
  if (plan.api_records == ApiRecords::kSelected &&
      (!g_cupti->cuptiActivityEnableRuntimeApi || !g_cupti->cuptiActivityEnableDriverApi)) {
    // A libcupti that cannot select APIs: every call, as before the light plan.
    record_every_api(&plan);
  }
  const HwTraceResult hw = r == CUPTI_SUCCESS ? enable_hw_trace() : HwTraceResult{};
  g_hw_trace_retry.store(hw.too_early, std::memory_order_relaxed);
  *g_plan = plan;
  g_windowed = deep.mode != DeepSchedule::Mode::kAlways;
  // DEVICE stays on in every window and outside: CUPTI writes its records
  // when the kind is enabled, once per GPU, at no cost after that.
  if (r == CUPTI_SUCCESS && g_windowed)
    r = g_cupti->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE);
  ApiSelection selection;
  if (r == CUPTI_SUCCESS && !g_windowed) r = set_plan_enabled(true, &selection);
  std::vector<std::string> enabled;
  for (const ActivityKind& k : plan.kinds) enabled.emplace_back(k.name);
  if (r != CUPTI_SUCCESS) {
    set_state(sf::GpuCaptureState::GPU_CAPTURE_FAILED,
              "enabling CUPTI activity: " + result_string(r));
    VPROF_WARN_ONCE("GPU capture off: enabling CUPTI activity: {}", result_string(r));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(*g_status_lock);
    g_status->kinds = enabled;
    g_status->mode = plan.mode;
    g_status->api_records = api_records_value(plan.api_records);
    g_status->selected_runtime_apis = selection.runtime;
    g_status->selected_driver_apis = selection.driver;
    g_status->hw_trace = hw.state;
    g_status->hw_trace_detail = hw.detail;
  }
  set_state(sf::GpuCaptureState::GPU_CAPTURE_ACTIVE, "");
  g_gpu_capture_active.store(true, std::memory_order_release);
  log().debug("GPU capture on through {}", g_cupti->path);
}

void put_status(TraceWriter& w, const Status& s) {
  ProtoEncoder& enc = w.encoder();
  auto t = w.begin_packet(sf::TracePacket::kGpuCapture);
  namespace f = sf::GpuCaptureStatus;
  enc.add_varint(f::kState, static_cast<uint64_t>(s.state));
  if (!s.detail.empty()) enc.add_string(f::kDetail, s.detail);
  if (!s.cupti_path.empty()) enc.add_string(f::kCuptiPath, s.cupti_path);
  if (s.cupti_version) enc.add_varint(f::kCuptiVersion, s.cupti_version);
  if (s.state == sf::GpuCaptureState::GPU_CAPTURE_ACTIVE) {
    enc.add_string(f::kTimestampSource, "cupti_timestamp_callback");
  }
  if (!s.cuda_injection_found.empty()) {
    enc.add_string(f::kCudaInjectionFound, s.cuda_injection_found);
  }
  for (const auto& k : s.kinds) enc.add_string(f::kActivityKinds, k);
  if (s.api_records) enc.add_varint(f::kApiRecords, static_cast<uint64_t>(s.api_records));
  if (s.selected_runtime_apis) enc.add_varint(f::kSelectedRuntimeApis, s.selected_runtime_apis);
  if (s.selected_driver_apis) enc.add_varint(f::kSelectedDriverApis, s.selected_driver_apis);
  if (!s.mode.empty()) enc.add_string(f::kCaptureMode, s.mode);
  if (s.hw_trace) enc.add_varint(f::kHwTrace, static_cast<uint64_t>(s.hw_trace));
  if (!s.hw_trace_detail.empty()) enc.add_string(f::kHwTraceDetail, s.hw_trace_detail);
  if (s.launch_cost) {
    namespace c = sf::LaunchCostCalibration;
    const LaunchCost& cost = *s.launch_cost;
    const size_t nested = enc.begin_nested(f::kLaunchCost);
    if (cost.failure.empty()) {
      enc.add_varint(c::kRounds, cost.rounds);
      enc.add_varint(c::kLaunchesPerRound, cost.launches_per_round);
      enc.add_varint(c::kBareLaunchNs, cost.bare_launch_ns);
      enc.add_varint(c::kTracedLaunchNs, cost.traced_launch_ns);
      if (cost.gpu_failure.empty()) {
        enc.add_varint(c::kBareKernelGpuNs, cost.bare_kernel_gpu_ns);
        enc.add_varint(c::kTracedKernelGpuNs, cost.traced_kernel_gpu_ns);
      } else {
        enc.add_string(c::kGpuFailure, cost.gpu_failure);
      }
    } else {
      enc.add_string(c::kFailure, cost.failure);
    }
    enc.add_varint(c::kBeginNs, cost.begin_ns);
    enc.add_varint(c::kEndNs, cost.end_ns);
    enc.end_nested(nested);
  }
  w.end_packet(t);
}

// Encodes one filled buffer: names first (their packets must precede the
// batch), then the records, split into several GpuBatch packets when the
// encoder fills.
bool drain_buffer(TraceWriter& w, const FilledBuffer& b) {
  auto next = [&](CUpti_Activity* r, CUpti_Activity** out) {
    *out = r;
    return g_cupti->cuptiActivityGetNextRecord(b.data, b.valid_bytes, out) == CUPTI_SUCCESS;
  };
  std::vector<uint64_t> name_iids;
  for (CUpti_Activity* r = nullptr; next(r, &r);) {
    device_memory_sampler().note(r);
    std::string_view name = activity_name(r, g_cupti->cuptiGetCallbackName);
    name_iids.push_back(name.empty() ? 0 : w.intern(name));
  }
  ProtoEncoder& enc = w.encoder();
  uint64_t recorded = 0;
  size_t i = 0;
  bool open = false;
  TraceWriter::PacketTokens t{};
  auto start_batch = [&](uint64_t dropped) {
    t = w.begin_packet(sf::TracePacket::kGpuBatch);
    if (dropped) enc.add_varint(sf::GpuBatch::kDropped, dropped);
    open = true;
  };
  if (!w.ensure_room(kMaxEncodedActivityBytes + 64)) return false;
  start_batch(b.dropped);
  for (CUpti_Activity* r = nullptr; next(r, &r); ++i) {
    if (enc.capacity() - enc.size() < kMaxEncodedActivityBytes) {
      w.end_packet(t);
      open = false;
      if (!w.write_out()) return false;
      start_batch(0);
    }
    if (encode_activity(enc, r, name_iids[i])) ++recorded;
  }
  if (open) w.end_packet(t);
  w.count(kCuptiCount, recorded, b.dropped);
  return true;
}

}  // namespace

void start_gpu_capture(const std::string& kinds, const DeepSchedule& deep) {
  static std::once_flag once;
  std::call_once(once, [&] { start(kinds, deep); });
}

bool record_gpu_activity(bool on) {
  if (!g_gpu_capture_active.load(std::memory_order_acquire)) return false;
  std::unique_lock<std::mutex> switching(*g_switch_lock);
  if (g_activity_on.load(std::memory_order_acquire) == on) return true;
  ApiSelection selection;
  const CUptiResult r = set_plan_enabled(on, &selection);
  switching.unlock();
  if (r != CUPTI_SUCCESS) {
    g_gpu_capture_active.store(false, std::memory_order_release);
    set_state(sf::GpuCaptureState::GPU_CAPTURE_FAILED,
              std::string(on ? "opening" : "closing") + " a deep window: " + result_string(r));
    VPROF_WARN_ONCE("GPU capture off: {} a deep window: {}", on ? "opening" : "closing",
                    result_string(r));
    return false;
  }
  if (on) {
    std::lock_guard<std::mutex> lock(*g_status_lock);
    if (g_status->selected_runtime_apis != selection.runtime ||
        g_status->selected_driver_apis != selection.driver) {
      g_status->selected_runtime_apis = selection.runtime;
      g_status->selected_driver_apis = selection.driver;
      ++g_status->generation;
    }
  } else {
    // Records of the window's last work are in CUPTI's buffers until flushed.
    g_cupti->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  return true;
}

void note_cuda_injection(const char* found_value) {
  std::lock_guard<std::mutex> lock(*g_status_lock);
  g_status->cuda_injection_found = found_value ? found_value : "";
  ++g_status->generation;
}

std::atomic<bool> g_wanted{true};

void note_gpu_capture_unavailable(const char* why) {
  g_wanted.store(false);
  set_state(sf::GpuCaptureState::GPU_CAPTURE_UNAVAILABLE, why);
}

bool gpu_capture_wanted() { return g_wanted.load(); }

void reset_gpu_capture_in_child() {
  g_gpu_capture_active.store(false);
  g_wanted.store(false);
  g_status_lock.renew_in_child();
  g_switch_lock.renew_in_child();
  reset_buffers_in_child();
  device_memory_sampler().reset_in_child();
  set_state(sf::GpuCaptureState::GPU_CAPTURE_UNAVAILABLE,
            "forked child: CUPTI belongs to the parent process");
}

uint64_t push_gpu_correlation() {
  uint64_t id = g_next_call_id.fetch_add(1, std::memory_order_relaxed) + 1;
  g_cupti->cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
  return id;
}

void pop_gpu_correlation() {
  uint64_t last = 0;
  g_cupti->cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

void request_gpu_flush(bool forced) {
  if (!g_gpu_capture_active.load(std::memory_order_acquire)) return;
  g_cupti->cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

const SourceCount kCuptiCount{"cupti", false};

bool drain_gpu_activity(TraceWriter& w) {
  if (g_gpu_capture_active.load(std::memory_order_acquire)) retry_hw_trace();
  Status status;
  bool changed = false;
  {
    std::lock_guard<std::mutex> lock(*g_status_lock);
    if (g_status->generation != g_status_written) {
      status = *g_status;
      g_status_written = g_status->generation;
      changed = true;
    }
  }
  if (changed) {
    if (!w.ensure_room(4096)) return false;
    put_status(w, status);
  }
  FilledBuffer b;
  while (pop_filled_buffer(&b)) {
    bool ok = drain_buffer(w, b);
    return_buffer(b.data);
    if (!ok) return false;
  }
  return true;
}

}  // namespace vprof
