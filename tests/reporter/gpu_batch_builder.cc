#include "gpu_batch_builder.h"

namespace vprof::reporter::testing {

GpuBatchBuilder& GpuBatchBuilder::Kernel(std::string_view name, uint64_t duration_ns,
                                         uint32_t correlation_id) {
  vprof::trace::GpuKernel& kernel = *batch_.add_kernel();
  kernel.set_name_iid(trace_.Intern(name));
  kernel.set_start_ns(1000);
  kernel.set_duration_ns(duration_ns);
  kernel.set_correlation_id(correlation_id);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::Memcpy(uint64_t bytes, uint64_t duration_ns) {
  vprof::trace::GpuMemcpy& copy = *batch_.add_memcpy();
  copy.set_bytes(bytes);
  copy.set_duration_ns(duration_ns);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::Memset(uint64_t bytes, uint64_t duration_ns) {
  vprof::trace::GpuMemset& set = *batch_.add_memset();
  set.set_bytes(bytes);
  set.set_duration_ns(duration_ns);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::GraphReplay(uint32_t graph_id, uint64_t duration_ns) {
  vprof::trace::GpuGraphReplay& replay = *batch_.add_graph_replay();
  replay.set_graph_id(graph_id);
  replay.set_duration_ns(duration_ns);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::GraphNodes(
    uint32_t graph_id, uint32_t graph_exec_id,
    const std::vector<std::pair<std::string_view, uint32_t>>& kernels, uint32_t unnamed_kernels,
    uint32_t memsets, uint32_t memcpys) {
  vprof::trace::GpuGraphNodes& graph = *batch_.add_graph_nodes();
  graph.set_graph_id(graph_id);
  graph.set_graph_exec_id(graph_exec_id);
  graph.set_unnamed_kernels(unnamed_kernels);
  graph.set_memset_nodes(memsets);
  graph.set_memcpy_nodes(memcpys);
  for (const auto& [name, count] : kernels) {
    vprof::trace::GraphKernelNodes& named = *graph.add_kernel();
    named.set_name_iid(trace_.Intern(name));
    named.set_count(count);
  }
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::Sync(uint32_t type, uint64_t duration_ns, uint32_t stream,
                                       uint64_t event_sync_id) {
  vprof::trace::GpuSync& sync = *batch_.add_sync();
  sync.set_type(type);
  sync.set_duration_ns(duration_ns);
  sync.set_stream(stream);
  sync.set_event_sync_id(event_sync_id);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::EventRecord(uint32_t stream, uint64_t event_sync_id,
                                              uint32_t cuda_event) {
  vprof::trace::CudaEventRecord& record = *batch_.add_event_record();
  record.set_stream(stream);
  record.set_event_sync_id(event_sync_id);
  record.set_cuda_event(cuda_event);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::Api(std::string_view name, uint32_t correlation_id) {
  vprof::trace::ApiCall& api = *batch_.add_api();
  api.set_name_iid(trace_.Intern(name));
  api.set_correlation_id(correlation_id);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::External(uint64_t call_id, uint32_t correlation_id) {
  vprof::trace::ExternalCorrelation& external = *batch_.add_external();
  external.set_external_id(call_id);
  external.set_correlation_id(correlation_id);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::Overhead(uint64_t duration_ns) {
  batch_.add_overhead()->set_duration_ns(duration_ns);
  return *this;
}

GpuBatchBuilder& GpuBatchBuilder::Dropped(uint64_t dropped) {
  batch_.set_dropped(dropped);
  return *this;
}

void GpuBatchBuilder::Write() {
  vprof::trace::TracePacket packet;
  *packet.mutable_gpu_batch() = batch_;
  trace_.AddPacket(std::move(packet));
}

void AddGpuCaptureStatus(TraceFileBuilder& trace, vprof::trace::GpuCaptureState state,
                         std::string detail, std::string cuda_injection_found) {
  vprof::trace::TracePacket packet;
  vprof::trace::GpuCaptureStatus& status = *packet.mutable_gpu_capture();
  status.set_state(state);
  status.set_detail(std::move(detail));
  status.set_timestamp_source("cupti_timestamp_callback");
  status.set_cuda_injection_found(std::move(cuda_injection_found));
  trace.AddPacket(std::move(packet));
}

}  // namespace vprof::reporter::testing
