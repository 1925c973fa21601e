#include "activity_encoder.h"

#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

uint64_t duration(uint64_t start, uint64_t end) { return end > start ? end - start : 0; }

// Dimensions of 1 are the rule: leave them out (the schema reads 0 as 1).
void add_dim(ProtoEncoder& enc, uint32_t field, int32_t v) {
  if (v != 1) enc.add_varint(field, static_cast<uint32_t>(v));
}

void encode_kernel(ProtoEncoder& enc, const CUpti_ActivityKernel10& k, uint64_t name_iid) {
  namespace f = sf::GpuKernel;
  size_t m = enc.begin_nested(sf::GpuBatch::kKernel);
  enc.add_varint(f::kNameIid, name_iid);
  enc.add_varint(f::kStartNs, k.start);
  enc.add_varint(f::kDurationNs, duration(k.start, k.end));
  if (k.deviceId) enc.add_varint(f::kDevice, k.deviceId);
  if (k.contextId) enc.add_varint(f::kContext, k.contextId);
  enc.add_varint(f::kStream, k.streamId);
  enc.add_varint(f::kCorrelationId, k.correlationId);
  add_dim(enc, f::kGridX, k.gridX);
  add_dim(enc, f::kGridY, k.gridY);
  add_dim(enc, f::kGridZ, k.gridZ);
  add_dim(enc, f::kBlockX, k.blockX);
  add_dim(enc, f::kBlockY, k.blockY);
  add_dim(enc, f::kBlockZ, k.blockZ);
  if (k.graphId) {
    enc.add_varint(f::kGraphId, k.graphId);
    enc.add_varint(f::kGraphNodeId, k.graphNodeId);
  }
  enc.end_nested(m);
}

// The fields MEMCPY and MEMCPY2 (peer) records share, which have the same
// names in both structs.
template <typename Copy>
void add_copy_fields(ProtoEncoder& enc, const Copy& c) {
  namespace f = sf::GpuMemcpy;
  enc.add_varint(f::kCopyKind, c.copyKind);
  enc.add_varint(f::kSrcKind, c.srcKind);
  enc.add_varint(f::kDstKind, c.dstKind);
  enc.add_varint(f::kBytes, c.bytes);
  enc.add_varint(f::kStartNs, c.start);
  enc.add_varint(f::kDurationNs, duration(c.start, c.end));
  if (c.deviceId) enc.add_varint(f::kDevice, c.deviceId);
  if (c.contextId) enc.add_varint(f::kContext, c.contextId);
  enc.add_varint(f::kStream, c.streamId);
  enc.add_varint(f::kCorrelationId, c.correlationId);
  if (c.graphId) enc.add_varint(f::kGraphId, c.graphId);
}

void encode_memcpy(ProtoEncoder& enc, const CUpti_ActivityMemcpy6& c) {
  size_t m = enc.begin_nested(sf::GpuBatch::kMemcpy);
  add_copy_fields(enc, c);
  enc.end_nested(m);
}

// A copy between GPUs: a copy's fields plus the two devices.
void encode_peer_memcpy(ProtoEncoder& enc, const CUpti_ActivityMemcpyPtoP4& c) {
  namespace f = sf::GpuMemcpy;
  size_t m = enc.begin_nested(sf::GpuBatch::kMemcpy);
  add_copy_fields(enc, c);
  enc.add_varint(f::kSrcDevice, c.srcDeviceId);
  enc.add_varint(f::kDstDevice, c.dstDeviceId);
  enc.end_nested(m);
}

void encode_memset(ProtoEncoder& enc, const CUpti_ActivityMemset4& s) {
  namespace f = sf::GpuMemset;
  size_t m = enc.begin_nested(sf::GpuBatch::kMemset);
  enc.add_varint(f::kBytes, s.bytes);
  enc.add_varint(f::kStartNs, s.start);
  enc.add_varint(f::kDurationNs, duration(s.start, s.end));
  if (s.deviceId) enc.add_varint(f::kDevice, s.deviceId);
  if (s.contextId) enc.add_varint(f::kContext, s.contextId);
  enc.add_varint(f::kStream, s.streamId);
  enc.add_varint(f::kCorrelationId, s.correlationId);
  if (s.graphId) enc.add_varint(f::kGraphId, s.graphId);
  if (s.value) enc.add_varint(f::kValue, s.value);
  enc.end_nested(m);
}

void encode_sync(ProtoEncoder& enc, const CUpti_ActivitySynchronization2& s) {
  namespace f = sf::GpuSync;
  size_t m = enc.begin_nested(sf::GpuBatch::kSync);
  enc.add_varint(f::kType, static_cast<uint32_t>(s.type));
  enc.add_varint(f::kStartNs, s.start);
  enc.add_varint(f::kDurationNs, duration(s.start, s.end));
  if (s.contextId) enc.add_varint(f::kContext, s.contextId);
  // CUPTI_SYNCHRONIZATION_INVALID_VALUE (all ones) when not applicable.
  if (s.streamId != UINT32_MAX) enc.add_varint(f::kStream, s.streamId);
  if (s.cudaEventId != UINT32_MAX) enc.add_varint(f::kCudaEvent, s.cudaEventId);
  enc.add_varint(f::kCorrelationId, s.correlationId);
  if (s.cudaEventSyncId) enc.add_varint(f::kEventSyncId, s.cudaEventSyncId);
  enc.end_nested(m);
}

void encode_event_record(ProtoEncoder& enc, const CUpti_ActivityCudaEvent2& e) {
  namespace f = sf::CudaEventRecord;
  size_t m = enc.begin_nested(sf::GpuBatch::kEventRecord);
  enc.add_varint(f::kCorrelationId, e.correlationId);
  if (e.contextId) enc.add_varint(f::kContext, e.contextId);
  enc.add_varint(f::kStream, e.streamId);
  enc.add_varint(f::kCudaEvent, e.eventId);
  if (e.deviceId) enc.add_varint(f::kDevice, e.deviceId);
  if (e.cudaEventSyncId) enc.add_varint(f::kEventSyncId, e.cudaEventSyncId);
  enc.end_nested(m);
}

void encode_api(ProtoEncoder& enc, const CUpti_ActivityAPI& a, uint64_t name_iid) {
  namespace f = sf::ApiCall;
  size_t m = enc.begin_nested(sf::GpuBatch::kApi);
  if (a.kind == CUPTI_ACTIVITY_KIND_DRIVER) enc.add_bool(f::kDriver, true);
  enc.add_varint(f::kNameIid, name_iid);
  enc.add_varint(f::kStartNs, a.start);
  enc.add_varint(f::kDurationNs, duration(a.start, a.end));
  enc.add_varint(f::kTid, a.threadId);
  enc.add_varint(f::kCorrelationId, a.correlationId);
  if (a.returnValue) enc.add_varint(f::kReturnValue, a.returnValue);
  enc.end_nested(m);
}

void encode_external(ProtoEncoder& enc, const CUpti_ActivityExternalCorrelation& x) {
  namespace f = sf::ExternalCorrelation;
  size_t m = enc.begin_nested(sf::GpuBatch::kExternal);
  enc.add_varint(f::kKind, static_cast<uint32_t>(x.externalKind));
  enc.add_varint(f::kExternalId, x.externalId);
  enc.add_varint(f::kCorrelationId, x.correlationId);
  enc.end_nested(m);
}

void encode_overhead(ProtoEncoder& enc, const CUpti_ActivityOverhead3& o) {
  namespace f = sf::CuptiOverhead;
  size_t m = enc.begin_nested(sf::GpuBatch::kOverhead);
  enc.add_varint(f::kKind, static_cast<uint32_t>(o.overheadKind));
  enc.add_varint(f::kStartNs, o.start);
  enc.add_varint(f::kDurationNs, duration(o.start, o.end));
  enc.end_nested(m);
}

// Device names are short ("NVIDIA H200"); the cap, on the name as written
// (repaired to UTF-8), keeps one record within kMaxEncodedActivityBytes.
constexpr size_t kMaxDeviceNameBytes = 96;

// CUPTI allocates the name and leaves freeing it to the client; vprof leaves
// it (one short string per GPU), since freeing a name some CUPTI version did
// not allocate would crash the profiled program.
void encode_device(ProtoEncoder& enc, const CUpti_ActivityDevice5& d) {
  namespace f = sf::GpuDevice;
  size_t m = enc.begin_nested(sf::GpuBatch::kDevice);
  enc.add_varint(f::kId, d.id);
  enc.add_bytes(f::kUuid, std::string_view(d.uuid.bytes, sizeof(d.uuid.bytes)));
  if (d.name) enc.add_string(f::kName, d.name, kMaxDeviceNameBytes);
  enc.add_varint(f::kComputeCapabilityMajor, d.computeCapabilityMajor);
  enc.add_varint(f::kComputeCapabilityMinor, d.computeCapabilityMinor);
  enc.add_varint(f::kGlobalMemoryBytes, d.globalMemorySize);
  enc.add_varint(f::kMultiprocessors, d.numMultiprocessors);
  enc.end_nested(m);
}

void encode_memory(ProtoEncoder& enc, const CUpti_ActivityMemory4& a) {
  namespace f = sf::GpuMemoryOp;
  size_t m = enc.begin_nested(sf::GpuBatch::kMemory);
  enc.add_varint(f::kOperation, static_cast<uint32_t>(a.memoryOperationType));
  enc.add_varint(f::kMemoryKind, static_cast<uint32_t>(a.memoryKind));
  enc.add_varint(f::kAddress, a.address);
  enc.add_varint(f::kBytes, a.bytes);
  enc.add_varint(f::kTimestampNs, a.timestamp);
  if (a.deviceId) enc.add_varint(f::kDevice, a.deviceId);
  if (a.contextId) enc.add_varint(f::kContext, a.contextId);
  if (a.streamId) enc.add_varint(f::kStream, a.streamId);
  enc.add_varint(f::kCorrelationId, a.correlationId);
  if (a.isAsync) enc.add_bool(f::kIsAsync, true);
  if (a.memoryPoolConfig.memoryPoolType) {
    enc.add_varint(f::kPoolType, static_cast<uint32_t>(a.memoryPoolConfig.memoryPoolType));
  }
  enc.end_nested(m);
}

}  // namespace

std::string_view activity_name(const CUpti_Activity* record, CallbackNameFn get_callback_name) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const char* name = reinterpret_cast<const CUpti_ActivityKernel10*>(record)->name;
      return name ? name : "(unnamed kernel)";
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const char* name = nullptr;
      CUpti_CallbackDomain domain = record->kind == CUPTI_ACTIVITY_KIND_DRIVER
                                        ? CUPTI_CB_DOMAIN_DRIVER_API
                                        : CUPTI_CB_DOMAIN_RUNTIME_API;
      if (get_callback_name && get_callback_name(domain, a->cbid, &name) == CUPTI_SUCCESS && name) {
        return name;
      }
      return "(unknown API)";
    }
    default:
      return {};
  }
}

bool encode_activity(ProtoEncoder& enc, const CUpti_Activity* r, uint64_t name_iid) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      encode_kernel(enc, *reinterpret_cast<const CUpti_ActivityKernel10*>(r), name_iid);
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      encode_memcpy(enc, *reinterpret_cast<const CUpti_ActivityMemcpy6*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      encode_peer_memcpy(enc, *reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      encode_memset(enc, *reinterpret_cast<const CUpti_ActivityMemset4*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      encode_sync(enc, *reinterpret_cast<const CUpti_ActivitySynchronization2*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      encode_event_record(enc, *reinterpret_cast<const CUpti_ActivityCudaEvent2*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      encode_api(enc, *reinterpret_cast<const CUpti_ActivityAPI*>(r), name_iid);
      return true;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      encode_external(enc, *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      encode_overhead(enc, *reinterpret_cast<const CUpti_ActivityOverhead3*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      encode_memory(enc, *reinterpret_cast<const CUpti_ActivityMemory4*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      // A GPU that CUDA_VISIBLE_DEVICES hides has no CUDA ordinal: no rank
      // can run on it.
      const auto& device = *reinterpret_cast<const CUpti_ActivityDevice5*>(r);
      if (!device.isCudaVisible) return false;
      encode_device(enc, device);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace vprof
