#include "reporter/ingest/gpu_activity_reader.h"

#include <algorithm>

#include "reporter/base/saturating_ns.h"
#include "reporter/base/valid_utf8.h"
#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"

namespace vprof::reporter {
namespace {

// A copy that moved data between two GPUs: a MEMCPY2 record whose two devices
// differ, or a MEMCPY record of kind PtoP.
bool IsPeerCopy(const CopyRow& copy) {
  if (copy.has_src_device && copy.has_dst_device) return copy.src_device != copy.dst_device;
  return copy.copy_kind == kPeerToPeerCopyKind;
}

}  // namespace

std::string FormatGpuUuid(std::string_view bytes) {
  constexpr size_t kUuidBytes = 16;
  if (bytes.size() != kUuidBytes) return "";
  constexpr char kHex[] = "0123456789abcdef";
  std::string text = "GPU-";
  for (size_t i = 0; i < kUuidBytes; ++i) {
    // Groups of 4, 2, 2, 2 and 6 bytes.
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    const auto byte = static_cast<unsigned char>(bytes[i]);
    text += kHex[byte >> 4];
    text += kHex[byte & 0xf];
  }
  return text;
}

void GpuActivityReader::AddCaptureStatus(const vprof::trace::GpuCaptureStatus& status) {
  // The last one read holds.
  record_.capture = std::make_shared<const vprof::trace::GpuCaptureStatus>(status);
  const auto& kinds = status.activity_kinds();
  record_.memory.recorded = std::find(kinds.begin(), kinds.end(), "MEMORY2") != kinds.end();
}

void GpuActivityReader::AddDeviceMemory(const vprof::trace::DeviceMemorySamples& samples) {
  for (const auto& sample : samples.sample()) {
    record_.memory.AddSample(DeviceMemorySampleRow{static_cast<int64_t>(sample.time_ns()),
                                                   sample.device(), sample.used_bytes(),
                                                   sample.total_bytes()});
  }
}

void GpuActivityReader::AddDeviceMemorySampling(
    const vprof::trace::DeviceMemorySampling& sampling) {
  record_.memory.sampling = sampling.sampling();
  record_.memory.sampling_why_not = ValidUtf8(sampling.why_not());
  record_.memory.sampling_interval_ns = sampling.interval_ns();
}

// A batch holds its records grouped by kind, not in CUPTI's order, so the
// kinds others refer to go first: correlations before the API calls and
// kernels that close them, event records before the waits on them.
void GpuActivityReader::AddBatch(const GpuBatchRecords& batch) {
  ++record_.batches;
  record_.dropped_records += batch.dropped;
  for (const ExternalRow& external : batch.externals) {
    linker_.AddExternalCorrelation(external.external_id, external.correlation_id);
  }
  for (const KernelRow& kernel : batch.kernels) {
    record_.kernels.Add(0, kernel.duration_ns);
    KernelName& name = KernelNamed(kernel.name_iid);
    name.totals.Add(0, kernel.duration_ns);
    if (name.nccl_class && kernel.graph_id != 0) ++record_.nccl_graph_kernels;
    linker_.AddKernel(kernel.correlation_id, kernel.start_ns, kernel.duration_ns, name.nccl_class);
  }
  for (const ApiRow& api : batch.apis) {
    ++record_.api_calls;
    ApiName& name = ApiNamed(api.name_iid);
    if (name.launches_kernel) record_.launch_calls.Add(static_cast<int64_t>(api.duration_ns));
    if (name.ipc) name.ipc_totals.Add(0, api.duration_ns);
    if (name.memory_call != MemoryCall::kNone) {
      record_.memory.Add({static_cast<int64_t>(api.start_ns), 0,
                          static_cast<int64_t>(api.duration_ns), name.memory_call});
    }
    linker_.AddApiCall(api.correlation_id, name.launches_kernel);
  }
  for (const CopyRow& copy : batch.memcpys) {
    record_.memcpy.Add(copy.bytes, copy.duration_ns);
    if (IsPeerCopy(copy)) record_.peer_copies.Add(copy.bytes, copy.duration_ns);
    if (copy.src_kind == kPageableMemoryKind || copy.dst_kind == kPageableMemoryKind) {
      record_.pageable_copies.Add(copy.bytes, copy.duration_ns);
    } else if (copy.src_kind == kPinnedMemoryKind || copy.dst_kind == kPinnedMemoryKind) {
      record_.pinned_copies.Add(copy.bytes, copy.duration_ns);
    }
    const bool to_host = copy.copy_kind == kDeviceToHostCopyKind;
    if ((to_host || copy.copy_kind == kHostToDeviceCopyKind) && copy.bytes >= kLargeTransferBytes) {
      record_.memory.AddTransfer({static_cast<int64_t>(copy.start_ns),
                                  static_cast<int64_t>(copy.duration_ns), copy.bytes, to_host});
    }
  }
  for (const CopyRow& set : batch.memsets) record_.memset.Add(set.bytes, set.duration_ns);
  const vprof::trace::GpuBatch& others = batch.others;
  // A graph's node list comes before the records of its replays.
  for (const auto& graph : others.graph_nodes()) graph_nodes_.Add(graph);
  for (const GraphReplayRow& replay : batch.graph_replays) {
    record_.graph_replays.Add(0, replay.duration_ns);
    if (const std::optional<GraphNodes> nodes = graph_nodes_.Of(replay.graph_id)) {
      GraphNodes& ran = record_.graph_replay_nodes;
      ran.kernels = SaturatingAdd(ran.kernels, nodes->kernels);
      ran.memsets = SaturatingAdd(ran.memsets, nodes->memsets);
      ran.memcpys = SaturatingAdd(ran.memcpys, nodes->memcpys);
    } else {
      ++record_.graph_replays_unlisted;
    }
  }
  for (const auto& record : others.event_record()) stream_waits_.AddRecord(record);
  for (const auto& sync : others.sync()) {
    record_.syncs.Add(0, sync.duration_ns());
    stream_waits_.AddSync(sync);
  }
  for (const auto& overhead : others.overhead()) {
    record_.cupti_overhead_ns =
        SaturatingAdd(record_.cupti_overhead_ns, ClampedNs(overhead.duration_ns()));
  }
  for (const auto& op : others.memory()) {
    if (const std::optional<int64_t> delta = DeviceMemoryDelta(op)) {
      record_.memory.Add({static_cast<int64_t>(op.timestamp_ns()), *delta, 0, MemoryCall::kNone});
    }
  }
  // CUPTI describes each GPU once per enable; the last description holds.
  for (const auto& device : others.device()) {
    record_.devices[device.id()] = {FormatGpuUuid(device.uuid()), device.name()};
  }
}

GpuRecord GpuActivityReader::Result() const {
  GpuRecord result = record_;
  kernels_by_iid_.ForEach([&](uint64_t iid, const KernelName& kernel) {
    std::string name = name_of_(iid);
    if (name.empty()) name = "(kernel name iid " + std::to_string(iid) + " not interned)";
    ActivityTotals& totals = result.kernels_by_name[name];
    totals.count += kernel.totals.count;
    totals.total_ns += kernel.totals.total_ns;
  });
  apis_by_iid_.ForEach([&](uint64_t iid, const ApiName& api) {
    if (api.ipc_totals.count == 0) return;
    ActivityTotals& totals = result.ipc_calls[name_of_(iid)];
    totals.count += api.ipc_totals.count;
    totals.total_ns += api.ipc_totals.total_ns;
  });
  result.nccl = linker_.Result();
  result.stream_waits = stream_waits_.result();
  return result;
}

GpuActivityReader::KernelName& GpuActivityReader::KernelNamed(uint64_t name_iid) {
  auto [kernel, inserted] = kernels_by_iid_.try_emplace(name_iid);
  if (inserted) kernel.nccl_class = KernelClassOf(name_of_(name_iid)) == kNcclKernelClass;
  return kernel;
}

GpuActivityReader::ApiName& GpuActivityReader::ApiNamed(uint64_t api_name_iid) {
  auto [api, inserted] = apis_by_iid_.try_emplace(api_name_iid);
  if (inserted) {
    const std::string name = name_of_(api_name_iid);
    api.launches_kernel = LaunchesKernel(name);
    api.ipc = ApiClassOf(name) == kIpcApiClass;
    api.memory_call = MemoryCallOf(name);
  }
  return api;
}

}  // namespace vprof::reporter
