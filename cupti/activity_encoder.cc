#include "cupti/activity_encoder.h"

#include <climits>

#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

uint64_t Duration(uint64_t start, uint64_t end) { return end > start ? end - start : 0; }

// Dimensions of 1 are the rule: leave them out (the schema reads 0 as 1).
void AddDim(ProtoEncoder& enc, uint32_t field, int32_t v) {
  if (v != 1) enc.AddVarint(field, static_cast<uint32_t>(v));
}

void EncodeKernel(ProtoEncoder& enc, const CUpti_ActivityKernel10& k, uint64_t name_iid) {
  namespace f = sf::GpuKernel;
  size_t m = enc.BeginNested(sf::GpuBatch::kKernel);
  enc.AddVarint(f::kNameIid, name_iid);
  enc.AddVarint(f::kStartNs, k.start);
  enc.AddVarint(f::kDurationNs, Duration(k.start, k.end));
  if (k.deviceId) enc.AddVarint(f::kDevice, k.deviceId);
  if (k.contextId) enc.AddVarint(f::kContext, k.contextId);
  enc.AddVarint(f::kStream, k.streamId);
  enc.AddVarint(f::kCorrelationId, k.correlationId);
  AddDim(enc, f::kGridX, k.gridX);
  AddDim(enc, f::kGridY, k.gridY);
  AddDim(enc, f::kGridZ, k.gridZ);
  AddDim(enc, f::kBlockX, k.blockX);
  AddDim(enc, f::kBlockY, k.blockY);
  AddDim(enc, f::kBlockZ, k.blockZ);
  if (k.graphId) {
    enc.AddVarint(f::kGraphId, k.graphId);
    enc.AddVarint(f::kGraphNodeId, k.graphNodeId);
  }
  enc.EndNested(m);
}

// The fields MEMCPY and MEMCPY2 (peer) records share, which have the same
// names in both structs.
template <typename Copy>
void AddCopyFields(ProtoEncoder& enc, const Copy& c) {
  namespace f = sf::GpuMemcpy;
  enc.AddVarint(f::kCopyKind, c.copyKind);
  enc.AddVarint(f::kSrcKind, c.srcKind);
  enc.AddVarint(f::kDstKind, c.dstKind);
  enc.AddVarint(f::kBytes, c.bytes);
  enc.AddVarint(f::kStartNs, c.start);
  enc.AddVarint(f::kDurationNs, Duration(c.start, c.end));
  if (c.deviceId) enc.AddVarint(f::kDevice, c.deviceId);
  if (c.contextId) enc.AddVarint(f::kContext, c.contextId);
  enc.AddVarint(f::kStream, c.streamId);
  enc.AddVarint(f::kCorrelationId, c.correlationId);
  if (c.graphId) enc.AddVarint(f::kGraphId, c.graphId);
}

void EncodeMemcpy(ProtoEncoder& enc, const CUpti_ActivityMemcpy6& c) {
  size_t m = enc.BeginNested(sf::GpuBatch::kMemcpy);
  AddCopyFields(enc, c);
  enc.EndNested(m);
}

// A copy between GPUs: a copy's fields plus the two devices.
void EncodePeerMemcpy(ProtoEncoder& enc, const CUpti_ActivityMemcpyPtoP4& c) {
  namespace f = sf::GpuMemcpy;
  size_t m = enc.BeginNested(sf::GpuBatch::kMemcpy);
  AddCopyFields(enc, c);
  enc.AddVarint(f::kSrcDevice, c.srcDeviceId);
  enc.AddVarint(f::kDstDevice, c.dstDeviceId);
  enc.EndNested(m);
}

void EncodeMemset(ProtoEncoder& enc, const CUpti_ActivityMemset4& s) {
  namespace f = sf::GpuMemset;
  size_t m = enc.BeginNested(sf::GpuBatch::kMemset);
  enc.AddVarint(f::kBytes, s.bytes);
  enc.AddVarint(f::kStartNs, s.start);
  enc.AddVarint(f::kDurationNs, Duration(s.start, s.end));
  if (s.deviceId) enc.AddVarint(f::kDevice, s.deviceId);
  if (s.contextId) enc.AddVarint(f::kContext, s.contextId);
  enc.AddVarint(f::kStream, s.streamId);
  enc.AddVarint(f::kCorrelationId, s.correlationId);
  if (s.graphId) enc.AddVarint(f::kGraphId, s.graphId);
  if (s.value) enc.AddVarint(f::kValue, s.value);
  enc.EndNested(m);
}

void EncodeSync(ProtoEncoder& enc, const CUpti_ActivitySynchronization2& s) {
  namespace f = sf::GpuSync;
  size_t m = enc.BeginNested(sf::GpuBatch::kSync);
  enc.AddVarint(f::kType, static_cast<uint32_t>(s.type));
  enc.AddVarint(f::kStartNs, s.start);
  enc.AddVarint(f::kDurationNs, Duration(s.start, s.end));
  if (s.contextId) enc.AddVarint(f::kContext, s.contextId);
  // CUPTI_SYNCHRONIZATION_INVALID_VALUE (all ones) when not applicable.
  if (s.streamId != UINT32_MAX) enc.AddVarint(f::kStream, s.streamId);
  if (s.cudaEventId != UINT32_MAX) enc.AddVarint(f::kCudaEvent, s.cudaEventId);
  enc.AddVarint(f::kCorrelationId, s.correlationId);
  if (s.cudaEventSyncId) enc.AddVarint(f::kEventSyncId, s.cudaEventSyncId);
  enc.EndNested(m);
}

void EncodeEventRecord(ProtoEncoder& enc, const CUpti_ActivityCudaEvent2& e) {
  namespace f = sf::CudaEventRecord;
  size_t m = enc.BeginNested(sf::GpuBatch::kEventRecord);
  enc.AddVarint(f::kCorrelationId, e.correlationId);
  if (e.contextId) enc.AddVarint(f::kContext, e.contextId);
  enc.AddVarint(f::kStream, e.streamId);
  enc.AddVarint(f::kCudaEvent, e.eventId);
  if (e.deviceId) enc.AddVarint(f::kDevice, e.deviceId);
  if (e.cudaEventSyncId) enc.AddVarint(f::kEventSyncId, e.cudaEventSyncId);
  enc.EndNested(m);
}

void EncodeApi(ProtoEncoder& enc, const CUpti_ActivityAPI& a, uint64_t name_iid) {
  namespace f = sf::ApiCall;
  size_t m = enc.BeginNested(sf::GpuBatch::kApi);
  if (a.kind == CUPTI_ACTIVITY_KIND_DRIVER) enc.AddBool(f::kDriver, true);
  enc.AddVarint(f::kNameIid, name_iid);
  enc.AddVarint(f::kStartNs, a.start);
  enc.AddVarint(f::kDurationNs, Duration(a.start, a.end));
  enc.AddVarint(f::kTid, a.threadId);
  enc.AddVarint(f::kCorrelationId, a.correlationId);
  if (a.returnValue) enc.AddVarint(f::kReturnValue, a.returnValue);
  enc.EndNested(m);
}

void EncodeExternal(ProtoEncoder& enc, const CUpti_ActivityExternalCorrelation& x) {
  namespace f = sf::ExternalCorrelation;
  size_t m = enc.BeginNested(sf::GpuBatch::kExternal);
  enc.AddVarint(f::kKind, static_cast<uint32_t>(x.externalKind));
  enc.AddVarint(f::kExternalId, x.externalId);
  enc.AddVarint(f::kCorrelationId, x.correlationId);
  enc.EndNested(m);
}

void EncodeOverhead(ProtoEncoder& enc, const CUpti_ActivityOverhead3& o) {
  namespace f = sf::CuptiOverhead;
  size_t m = enc.BeginNested(sf::GpuBatch::kOverhead);
  enc.AddVarint(f::kKind, static_cast<uint32_t>(o.overheadKind));
  enc.AddVarint(f::kStartNs, o.start);
  enc.AddVarint(f::kDurationNs, Duration(o.start, o.end));
  enc.EndNested(m);
}

// Device names are short ("NVIDIA H200"); the cap, on the name as written
// (repaired to UTF-8), keeps one record within kMaxEncodedActivityBytes.
constexpr size_t kMaxDeviceNameBytes = 96;

// CUPTI allocates the name and leaves freeing it to the client; vprof leaves
// it (one short string per GPU), since freeing a name some CUPTI version did
// not allocate would crash the profiled program.
void EncodeDevice(ProtoEncoder& enc, const CUpti_ActivityDevice5& d) {
  namespace f = sf::GpuDevice;
  size_t m = enc.BeginNested(sf::GpuBatch::kDevice);
  enc.AddVarint(f::kId, d.id);
  enc.AddBytes(f::kUuid, std::string_view(d.uuid.bytes, sizeof(d.uuid.bytes)));
  if (d.name) enc.AddString(f::kName, d.name, kMaxDeviceNameBytes);
  enc.AddVarint(f::kComputeCapabilityMajor, d.computeCapabilityMajor);
  enc.AddVarint(f::kComputeCapabilityMinor, d.computeCapabilityMinor);
  enc.AddVarint(f::kGlobalMemoryBytes, d.globalMemorySize);
  enc.AddVarint(f::kMultiprocessors, d.numMultiprocessors);
  enc.EndNested(m);
}

void EncodeMemory(ProtoEncoder& enc, const CUpti_ActivityMemory4& a) {
  namespace f = sf::GpuMemoryOp;
  size_t m = enc.BeginNested(sf::GpuBatch::kMemory);
  enc.AddVarint(f::kOperation, static_cast<uint32_t>(a.memoryOperationType));
  enc.AddVarint(f::kMemoryKind, static_cast<uint32_t>(a.memoryKind));
  enc.AddVarint(f::kAddress, a.address);
  enc.AddVarint(f::kBytes, a.bytes);
  enc.AddVarint(f::kTimestampNs, a.timestamp);
  if (a.deviceId) enc.AddVarint(f::kDevice, a.deviceId);
  if (a.contextId) enc.AddVarint(f::kContext, a.contextId);
  if (a.streamId) enc.AddVarint(f::kStream, a.streamId);
  enc.AddVarint(f::kCorrelationId, a.correlationId);
  if (a.isAsync) enc.AddBool(f::kIsAsync, true);
  if (a.memoryPoolConfig.memoryPoolType) {
    enc.AddVarint(f::kPoolType, static_cast<uint32_t>(a.memoryPoolConfig.memoryPoolType));
  }
  enc.EndNested(m);
}

// One replay recorded whole. CUPTI gives 0 for both times when it could not
// time the replay; such a replay is written with no start and no duration.
void EncodeGraphReplay(ProtoEncoder& enc, const CUpti_ActivityGraphTrace2& g) {
  namespace f = sf::GpuGraphReplay;
  size_t m = enc.BeginNested(sf::GpuBatch::kGraphReplay);
  if (g.start) enc.AddVarint(f::kStartNs, g.start);
  if (g.end) enc.AddVarint(f::kDurationNs, Duration(g.start, g.end));
  // INT_MAX: the graph's first node ran on the host; its last node's GPU then.
  const bool host_start = g.deviceId == INT_MAX;
  const uint32_t device = host_start ? g.endDeviceId : g.deviceId;
  const uint32_t context = host_start ? g.endContextId : g.contextId;
  if (device) enc.AddVarint(f::kDevice, device);
  if (context) enc.AddVarint(f::kContext, context);
  enc.AddVarint(f::kStream, g.streamId);
  enc.AddVarint(f::kCorrelationId, g.correlationId);
  enc.AddVarint(f::kGraphId, g.graphId);
  enc.EndNested(m);
}

}  // namespace

std::string_view ActivityName(const CUpti_Activity* record, CallbackNameFn get_callback_name) {
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

bool EncodeActivity(ProtoEncoder& enc, const CUpti_Activity* r, uint64_t name_iid) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      EncodeKernel(enc, *reinterpret_cast<const CUpti_ActivityKernel10*>(r), name_iid);
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      EncodeMemcpy(enc, *reinterpret_cast<const CUpti_ActivityMemcpy6*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      EncodePeerMemcpy(enc, *reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      EncodeMemset(enc, *reinterpret_cast<const CUpti_ActivityMemset4*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      EncodeSync(enc, *reinterpret_cast<const CUpti_ActivitySynchronization2*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      EncodeEventRecord(enc, *reinterpret_cast<const CUpti_ActivityCudaEvent2*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      EncodeApi(enc, *reinterpret_cast<const CUpti_ActivityAPI*>(r), name_iid);
      return true;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      EncodeExternal(enc, *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      EncodeOverhead(enc, *reinterpret_cast<const CUpti_ActivityOverhead3*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      EncodeMemory(enc, *reinterpret_cast<const CUpti_ActivityMemory4*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
      EncodeGraphReplay(enc, *reinterpret_cast<const CUpti_ActivityGraphTrace2*>(r));
      return true;
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      // A GPU that CUDA_VISIBLE_DEVICES hides has no CUDA ordinal: no rank
      // can run on it.
      const auto& device = *reinterpret_cast<const CUpti_ActivityDevice5*>(r);
      if (!device.isCudaVisible) return false;
      EncodeDevice(enc, device);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace vprof
