#include "cupti/device_memory_sampler.h"

#include <bit>
#include <cstring>

#include "interpose/core/load_order.h"
#include "interpose/core/proto_encoder.h"
#include "interpose/core/trace_writer.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

constexpr uint64_t Bit(uint32_t device) { return uint64_t{1} << device; }

LoadFirst<DeviceMemorySampler> g_sampler VPROF_LOAD_FIRST(LoadNvml);

}  // namespace

void DeviceMemorySampler::Note(const CUpti_Activity* record) {
  if (record->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
    const auto& d = *reinterpret_cast<const CUpti_ActivityDevice5*>(record);
    if (!d.isCudaVisible || d.id >= kMostDevices) return;
    std::memcpy(uuid_[d.id].data(), d.uuid.bytes, sizeof d.uuid.bytes);
    known_mask_ |= Bit(d.id);
  } else if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    const uint32_t device = reinterpret_cast<const CUpti_ActivityKernel10*>(record)->deviceId;
    if (device < kMostDevices) used_mask_ |= Bit(device);
  } else if (record->kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE) {
    // A replay recorded whole ran on the GPU where it ended (its start may be on the host).
    const uint32_t device = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record)->endDeviceId;
    if (device < kMostDevices) used_mask_ |= Bit(device);
  }
}

void DeviceMemorySampler::ResetInChild() {
  // A forked child's CUPTI is off: nothing to wait for.
  waiting_.store(false, std::memory_order_relaxed);
  used_mask_ = 0;
  known_mask_ = 0;
  last_sample_ns_ = 0;
}

// NVML's handle of a CUDA device by its UUID; a MIG instance's UUID is
// NVML's "MIG-" one. Null (and never asked again) when NVML knows neither.
nvml::Device DeviceMemorySampler::Handle(uint32_t device) {
  if (handle_[device]) return handle_[device];
  if (handle_failed_mask_ & Bit(device)) return nullptr;
  std::string name = NvmlUuid(uuid_[device]);
  if (nvml_.nvmlDeviceGetHandleByUUID(name.c_str(), &handle_[device]) != nvml::kSuccess) {
    name.replace(0, 3, "MIG");
    if (nvml_.nvmlDeviceGetHandleByUUID(name.c_str(), &handle_[device]) != nvml::kSuccess) {
      handle_[device] = nullptr;
      handle_failed_mask_ |= Bit(device);
    }
  }
  return handle_[device];
}

bool DeviceMemorySampler::Start(TraceWriter& writer, uint64_t interval_ns, uint64_t readable) {
  std::string why_not;
  state_ = load_(&nvml_, &why_not) ? State::kSampling : State::kOff;
  if (state_ == State::kSampling) {
    bool any = false;
    for (uint64_t left = readable; left != 0; left &= left - 1) {
      any = Handle(static_cast<uint32_t>(std::countr_zero(left))) != nullptr || any;
    }
    if (!any) {
      why_not = "NVML knows none of the GPUs this process used (" +
                NvmlUuid(uuid_[std::countr_zero(readable)]) + ")";
      state_ = State::kOff;
    }
  }
  if (!writer.EnsureRoom(why_not.size() + 64)) return false;
  ProtoEncoder& enc = writer.encoder();
  auto t = writer.BeginPacket(sf::TracePacket::kDeviceMemorySampling);
  enc.AddBool(sf::DeviceMemorySampling::kSampling, state_ == State::kSampling);
  if (!why_not.empty()) enc.AddString(sf::DeviceMemorySampling::kWhyNot, why_not);
  enc.AddVarint(sf::DeviceMemorySampling::kIntervalNs, interval_ns);
  writer.EndPacket(t);
  return true;
}

bool DeviceMemorySampler::PutSamples(TraceWriter& writer, uint64_t now_ns, uint64_t interval_ns,
                                     bool at_end) {
  const uint64_t readable = used_mask_ & known_mask_ & ~handle_failed_mask_;
  if (state_ == State::kOff || readable == 0) return true;
  waiting_.store(false, std::memory_order_relaxed);
  if (!at_end && last_sample_ns_ != 0 && now_ns - last_sample_ns_ < interval_ns / 2) return true;
  if (state_ == State::kWaiting) {
    if (!Start(writer, interval_ns, readable)) return false;
    if (state_ == State::kOff) return true;
  }
  last_sample_ns_ = now_ns;
  constexpr size_t kSampleBytes = 48;
  if (!writer.EnsureRoom(kSampleBytes * std::popcount(readable) + 16)) return false;
  ProtoEncoder& enc = writer.encoder();
  auto t = writer.BeginPacket(sf::TracePacket::kDeviceMemory);
  for (uint64_t left = readable; left != 0; left &= left - 1) {
    const auto device = static_cast<uint32_t>(std::countr_zero(left));
    nvml::Device h = Handle(device);
    nvml::Memory memory{};
    if (!h || nvml_.nvmlDeviceGetMemoryInfo(h, &memory) != nvml::kSuccess) continue;
    const size_t m = enc.BeginNested(sf::DeviceMemorySamples::kSample);
    enc.AddVarint(sf::DeviceMemorySample::kTimeNs, now_ns);
    enc.AddVarint(sf::DeviceMemorySample::kDevice, device);
    enc.AddVarint(sf::DeviceMemorySample::kUsedBytes, memory.used);
    enc.AddVarint(sf::DeviceMemorySample::kTotalBytes, memory.total);
    enc.EndNested(m);
  }
  writer.EndPacket(t);
  return true;
}

DeviceMemorySampler& GlobalDeviceMemorySampler() { return *g_sampler; }

}  // namespace vprof
