#include "export_trace_builder.h"

#include <utility>

namespace vprof::reporter::testing {

ExportGpuBatch& ExportGpuBatch::Kernel(std::string_view name, uint64_t start_ns,
                                       uint64_t duration_ns, uint32_t correlation_id,
                                       uint32_t stream, uint32_t grid_x, uint32_t block_x) {
  vprof::trace::GpuKernel& kernel = *batch_.add_kernel();
  kernel.set_name_iid(trace_.Intern(name));
  kernel.set_start_ns(start_ns);
  kernel.set_duration_ns(duration_ns);
  kernel.set_correlation_id(correlation_id);
  kernel.set_stream(stream);
  kernel.set_context(1);
  kernel.set_grid_x(grid_x);
  kernel.set_block_x(block_x);
  return *this;
}

ExportGpuBatch& ExportGpuBatch::GraphReplay(uint32_t graph_id, uint64_t start_ns,
                                            uint64_t duration_ns, uint32_t correlation_id,
                                            uint32_t stream) {
  vprof::trace::GpuGraphReplay& replay = *batch_.add_graph_replay();
  replay.set_graph_id(graph_id);
  replay.set_start_ns(start_ns);
  replay.set_duration_ns(duration_ns);
  replay.set_correlation_id(correlation_id);
  replay.set_stream(stream);
  replay.set_context(1);
  return *this;
}

ExportGpuBatch& ExportGpuBatch::Memcpy(uint64_t bytes, uint64_t start_ns, uint64_t duration_ns,
                                       uint32_t correlation_id, uint32_t stream) {
  vprof::trace::GpuMemcpy& copy = *batch_.add_memcpy();
  copy.set_copy_kind(1);  // CUPTI_ACTIVITY_MEMCPY_KIND_HTOD
  copy.set_src_kind(1);   // CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
  copy.set_dst_kind(3);   // CUPTI_ACTIVITY_MEMORY_KIND_DEVICE
  copy.set_bytes(bytes);
  copy.set_start_ns(start_ns);
  copy.set_duration_ns(duration_ns);
  copy.set_correlation_id(correlation_id);
  copy.set_stream(stream);
  copy.set_context(1);
  return *this;
}

ExportGpuBatch& ExportGpuBatch::Memory(bool release, uint64_t bytes, uint64_t at_ns,
                                       uint32_t correlation_id, uint32_t device,
                                       uint32_t memory_kind) {
  vprof::trace::GpuMemoryOp& op = *batch_.add_memory();
  op.set_operation(release ? 2 : 1);
  op.set_memory_kind(memory_kind);
  op.set_bytes(bytes);
  op.set_timestamp_ns(at_ns);
  op.set_correlation_id(correlation_id);
  op.set_device(device);
  return *this;
}

ExportGpuBatch& ExportGpuBatch::Api(std::string_view name, uint32_t tid, uint64_t start_ns,
                                    uint64_t duration_ns, uint32_t correlation_id) {
  vprof::trace::ApiCall& api = *batch_.add_api();
  api.set_name_iid(trace_.Intern(name));
  api.set_tid(tid);
  api.set_start_ns(start_ns);
  api.set_duration_ns(duration_ns);
  api.set_correlation_id(correlation_id);
  return *this;
}

ExportGpuBatch& ExportGpuBatch::External(uint64_t call_id, uint32_t correlation_id) {
  vprof::trace::ExternalCorrelation& external = *batch_.add_external();
  external.set_external_id(call_id);
  external.set_correlation_id(correlation_id);
  return *this;
}

void ExportGpuBatch::Write() {
  vprof::trace::TracePacket packet;
  *packet.mutable_gpu_batch() = batch_;
  trace_.AddPacket(std::move(packet));
}

void AddEventBatch(TraceFileBuilder& trace, uint32_t tid,
                   const std::vector<vprof::trace::NcclEvent>& events) {
  vprof::trace::TracePacket packet;
  vprof::trace::EventBatch& batch = *packet.mutable_event_batch();
  batch.set_tid(tid);
  for (const auto& event : events) *batch.add_nccl() = event;
  trace.AddPacket(std::move(packet));
}

vprof::trace::NvtxRange NvtxPushPop(TraceFileBuilder& trace, std::string_view name,
                                    uint64_t start_ns, uint64_t end_ns, uint32_t depth) {
  vprof::trace::NvtxRange range;
  range.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
  range.set_name_iid(trace.Intern(name));
  range.set_start_ns(start_ns);
  range.set_end_ns(end_ns);
  range.set_depth(depth);
  return range;
}

vprof::trace::NvtxRange NvtxMark(TraceFileBuilder& trace, std::string_view name, uint64_t at_ns) {
  vprof::trace::NvtxRange range;
  range.set_kind(vprof::trace::NVTX_KIND_MARK);
  range.set_name_iid(trace.Intern(name));
  range.set_start_ns(at_ns);
  range.set_end_ns(at_ns);
  return range;
}

vprof::trace::NvtxRange NvtxStartEnd(TraceFileBuilder& trace, std::string_view name,
                                     uint64_t start_ns, uint64_t end_ns, uint32_t start_tid) {
  vprof::trace::NvtxRange range;
  range.set_kind(vprof::trace::NVTX_KIND_START_END);
  range.set_name_iid(trace.Intern(name));
  range.set_start_ns(start_ns);
  range.set_end_ns(end_ns);
  range.set_start_tid(start_tid);
  return range;
}

void AddNvtxBatch(TraceFileBuilder& trace, uint32_t tid,
                  const std::vector<vprof::trace::NvtxRange>& ranges) {
  vprof::trace::TracePacket packet;
  vprof::trace::NvtxBatch& batch = *packet.mutable_nvtx_batch();
  batch.set_tid(tid);
  for (const auto& range : ranges) *batch.add_range() = range;
  trace.AddPacket(std::move(packet));
}

void AddThreadName(TraceFileBuilder& trace, uint32_t tid, std::string name) {
  vprof::trace::TracePacket packet;
  packet.mutable_thread()->set_tid(tid);
  packet.mutable_thread()->set_name(std::move(name));
  trace.AddPacket(std::move(packet));
}

void AddPluginColl(TraceFileBuilder& trace, const PluginColl& coll) {
  const uint64_t comm_name = trace.Intern(coll.comm_name);
  const uint64_t function = trace.Intern(coll.function);
  const uint64_t algorithm = trace.Intern(coll.algorithm);
  const uint64_t protocol = trace.Intern(coll.protocol);
  vprof::trace::TracePacket packet;
  vprof::trace::NcclPluginBatch& batch = *packet.mutable_nccl_plugin_batch();
  vprof::trace::NcclPluginComm& comm = *batch.add_comm();
  comm.set_context_id(coll.context_id);
  comm.set_comm_hash(coll.comm_hash);
  comm.set_name_iid(comm_name);
  comm.set_nranks(coll.nranks);
  comm.set_rank(coll.rank);
  vprof::trace::NcclPluginEvent& event = *batch.add_event();
  event.set_type(vprof::trace::NCCL_PLUGIN_EVENT_COLL);
  event.set_context_id(coll.context_id);
  event.set_event_id(1);
  event.set_func_iid(function);
  event.set_algo_iid(algorithm);
  event.set_proto_iid(protocol);
  event.set_channels(coll.channels);
  event.set_start_ns(coll.start_ns);
  event.set_stop_ns(coll.stop_ns);
  trace.AddPacket(std::move(packet));
}

namespace export_run {
namespace {

const Rank kRanks[2] = {
    {"nodeA", 100, 11, 10'000'000'000, kOffsetA, 5500, 6500, 21, 5600, 300, 7000, 2000},
    {"nodeB", 200, 21, 20'000'000'000, kOffsetB, 5400, 6600, 31, 5600, 250, 7100, 1900},
};

void AddClockSamples(TraceFileBuilder& trace, const Rank& rank) {
  for (uint64_t at : {0ull, 4000ull, 8000ull}) {
    const uint64_t clock = rank.base_ns + at;
    trace.AddClockSample(clock, clock + static_cast<uint64_t>(rank.offset_ns));
  }
}

vprof::trace::NcclEvent AllReduce(TraceFileBuilder& trace, const Rank& rank, uint32_t comm_rank) {
  vprof::trace::NcclEvent event =
      trace.Event("ncclAllReduce", kComm, 2, comm_rank, 1, kBytes, rank.base_ns + rank.call_enter,
                  rank.base_ns + rank.call_exit);
  event.set_call_id(kCallId);
  event.set_stream(0x7f00);
  return event;
}

void AddAllReduceKernel(TraceFileBuilder& trace, const Rank& rank) {
  const uint64_t base = rank.base_ns;
  ExportGpuBatch(trace)
      .External(kCallId, rank.nccl_correlation)
      .Api("cudaLaunchKernel_v7000", rank.tid, base + rank.launch_start, rank.launch_duration,
           rank.nccl_correlation)
      .Kernel(kNcclKernelMangled, base + rank.kernel_start, rank.kernel_duration,
              rank.nccl_correlation, kNcclStream, 2, 640)
      .Write();
}

}  // namespace

const Rank& RankInfo(int rank) { return kRanks[rank]; }

std::string FileName(int rank) {
  return kRanks[rank].host + "." + std::to_string(kRanks[rank].pid) + ".vtrace";
}

TraceFileBuilder Trace(int rank) {
  const Rank& info = kRanks[rank];
  const uint64_t base = info.base_ns;
  TraceFileBuilder trace(info.host, info.pid);
  AddClockSamples(trace, info);
  trace.AddCommunicator(kComm, 2, static_cast<uint32_t>(rank), "ncclCommInitRank");
  if (rank == 0) {
    AddThreadName(trace, info.tid, "python");
    AddNvtxBatch(trace, info.tid,
                 {NvtxPushPop(trace, "forward", base + 1500, base + 4000, 1),
                  NvtxPushPop(trace, "step", base + 1000, base + 9000, 0),
                  NvtxMark(trace, "checkpoint", base + 5000)});
    AddEventBatch(trace, info.tid, {AllReduce(trace, info, 0)});
    AddAllReduceKernel(trace, info);
    ExportGpuBatch(trace)
        .Api("cudaLaunchKernel_v7000", info.tid, base + 2000, 200, 22)
        .Api("cudaMemcpyAsync_v3020", info.tid, base + 3000, 100, 23)
        .Kernel("gemm", base + 2500, 1000, 22, kComputeStream, 4, 128)
        .Memcpy(4096, base + 3200, 400, 23, kComputeStream)
        .Api("cudaGraphLaunch_v10000", info.tid, base + 6500, 50, 24)
        .GraphReplay(4, base + 7000, 800, 24, kComputeStream)
        .GraphReplay(5, 0, 0, 24, kComputeStream)  // untimed: CUPTI gave no times
        .Kernel(kCalibrationKernel, base + 300, 2, 0, kCalibrationStream, 1, 1)
        .Write();
    AddPluginColl(
        trace, {5, 0xABC, "world", 2, 0, "AllReduce", "RING", "LL", 2, base + 5550, base + 6400});
  } else {
    AddAllReduceKernel(trace, info);
    AddNvtxBatch(trace, info.tid,
                 {NvtxPushPop(trace, "step", base + 1000, base + 9000, 0),
                  NvtxStartEnd(trace, "load", base + 500, base + 8000, 22)});
    AddEventBatch(trace, info.tid, {AllReduce(trace, info, 1)});
  }
  trace.AddFooter();
  return trace;
}

void Write(const std::string& directory) {
  for (int rank = 0; rank < 2; ++rank) Trace(rank).WriteTo(directory + "/" + FileName(rank));
}

}  // namespace export_run

}  // namespace vprof::reporter::testing
