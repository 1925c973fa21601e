#include "step_trace.h"

#include <fstream>
#include <stdexcept>
#include <utility>

#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter::testing {
namespace {

uint64_t At(int64_t us) { return static_cast<uint64_t>(kStepBase + us * kStepUs); }

}  // namespace

Report StepReportOf(const std::string& directory, uint32_t warmup,
                    std::vector<std::string> patterns) {
  const TraceFileList traces = ListTraceFiles(directory);
  if (!traces.error.empty()) throw std::runtime_error(traces.error);
  StepOptions options;
  options.warmup_steps = warmup;
  options.patterns = std::move(patterns);
  return BuildReport(directory, traces.paths, {}, options);
}

StepTrace::StepTrace(std::string host, uint32_t pid, int32_t rank, uint64_t comm_id,
                     uint32_t comm_size)
    : trace_(host, pid, rank),
      host_(std::move(host)),
      pid_(pid),
      rank_(rank),
      comm_id_(comm_id),
      comm_size_(comm_size) {
  trace_.AddCommunicator(comm_id, comm_size, static_cast<uint32_t>(rank), "ncclCommInitRank");
  nvtx_.set_tid(1);
}

void StepTrace::Range(std::string_view name, int64_t start_us, int64_t end_us, uint32_t depth) {
  vprof::trace::NvtxRange& range = *nvtx_.add_range();
  range.set_kind(vprof::trace::NVTX_KIND_PUSH_POP);
  range.set_name_iid(trace_.Intern(name));
  range.set_start_ns(At(start_us));
  range.set_end_ns(At(end_us));
  range.set_depth(depth);
}

uint32_t StepTrace::Kernel(std::string_view name, uint32_t stream, int64_t launch_us,
                           int64_t start_us, int64_t end_us, uint64_t call_id, uint64_t bytes) {
  const uint32_t correlation = Call("cudaLaunchKernel", launch_us, launch_tid_);
  vprof::trace::GpuKernel& kernel = *gpu_.add_kernel();
  kernel.set_name_iid(trace_.Intern(name));
  kernel.set_start_ns(At(start_us));
  kernel.set_duration_ns(At(end_us) - At(start_us));
  kernel.set_stream(stream);
  kernel.set_correlation_id(correlation);
  if (call_id != 0) {
    vprof::trace::ExternalCorrelation& external = *gpu_.add_external();
    external.set_external_id(call_id);
    external.set_correlation_id(correlation);
    vprof::trace::NcclEvent event =
        trace_.Event("ncclAllReduce", comm_id_, comm_size_, static_cast<uint32_t>(rank_),
                     next_seq_++, bytes, At(launch_us) - kStepUs, At(launch_us) + 3 * kStepUs);
    event.set_call_id(call_id);
    nccl_.push_back(event);
  }
  return correlation;
}

uint32_t StepTrace::Memcpy(uint32_t stream, int64_t launch_us, int64_t start_us, int64_t end_us) {
  const uint32_t correlation = next_correlation_++;
  vprof::trace::ApiCall& api = *gpu_.add_api();
  api.set_name_iid(trace_.Intern("cudaMemcpyAsync"));
  api.set_start_ns(At(launch_us));
  api.set_correlation_id(correlation);
  vprof::trace::GpuMemcpy& copy = *gpu_.add_memcpy();
  copy.set_bytes(4096);
  copy.set_start_ns(At(start_us));
  copy.set_duration_ns(At(end_us) - At(start_us));
  copy.set_stream(stream);
  copy.set_correlation_id(correlation);
  return correlation;
}

uint32_t StepTrace::GraphLaunch(uint32_t graph_id, uint32_t stream, int64_t launch_us,
                                const std::vector<std::pair<int64_t, int64_t>>& nodes, bool whole) {
  const uint32_t correlation = Call("cudaGraphLaunch_v10000", launch_us, launch_tid_);
  if (whole) {
    vprof::trace::GpuGraphReplay& replay = *gpu_.add_graph_replay();
    replay.set_start_ns(At(nodes.front().first));
    replay.set_duration_ns(At(nodes.back().second) - At(nodes.front().first));
    replay.set_stream(stream);
    replay.set_correlation_id(correlation);
    replay.set_graph_id(graph_id);
    return correlation;
  }
  uint64_t node_id = 1;
  for (const auto& [start_us, end_us] : nodes) {
    vprof::trace::GpuKernel& kernel = *gpu_.add_kernel();
    kernel.set_name_iid(trace_.Intern(kGemmKernel));
    kernel.set_start_ns(At(start_us));
    kernel.set_duration_ns(At(end_us) - At(start_us));
    kernel.set_stream(stream);
    kernel.set_correlation_id(correlation);
    kernel.set_graph_id(graph_id);
    kernel.set_graph_node_id(node_id++);
  }
  return correlation;
}

void StepTrace::Api(std::string_view name, int64_t at_us) {
  vprof::trace::ApiCall& api = *gpu_.add_api();
  api.set_name_iid(trace_.Intern(name));
  api.set_start_ns(At(at_us));
  api.set_correlation_id(next_correlation_++);
}

void StepTrace::CaptureState(vprof::trace::GpuCaptureState state) {
  vprof::trace::TracePacket packet;
  packet.mutable_gpu_capture()->set_state(state);
  trace_.AddPacket(std::move(packet));
}

void StepTrace::RecordsMemory() {
  vprof::trace::TracePacket packet;
  vprof::trace::GpuCaptureStatus& status = *packet.mutable_gpu_capture();
  status.set_state(vprof::trace::GPU_CAPTURE_ACTIVE);
  for (const char* kind : {"CONCURRENT_KERNEL", "MEMCPY", "MEMSET", "MEMORY2"}) {
    status.add_activity_kinds(kind);
  }
  trace_.AddPacket(std::move(packet));
}

void StepTrace::DeepWindow(int64_t start_us, int64_t end_us) {
  for (const int64_t end : {int64_t{0}, end_us}) {
    vprof::trace::TracePacket packet;
    vprof::trace::DeepWindow& window = *packet.mutable_deep_window();
    window.set_start_ns(At(start_us));
    window.set_end_ns(end == 0 ? 0 : At(end));
    window.set_cause(vprof::trace::DEEP_WINDOW_DUTY_CYCLE);
    trace_.AddPacket(std::move(packet));
  }
}

uint32_t StepTrace::Call(std::string_view api_name, int64_t at_us, uint32_t tid) {
  const uint32_t correlation = next_correlation_++;
  if (!api_calls_) return correlation;
  vprof::trace::ApiCall& api = *gpu_.add_api();
  api.set_name_iid(trace_.Intern(api_name));
  api.set_start_ns(At(at_us));
  api.set_duration_ns(2 * kStepUs);
  api.set_tid(tid);
  api.set_correlation_id(correlation);
  return correlation;
}

void StepTrace::RecordsNoApiCalls() {
  vprof::trace::TracePacket packet;
  vprof::trace::GpuCaptureStatus& status = *packet.mutable_gpu_capture();
  status.set_state(vprof::trace::GPU_CAPTURE_ACTIVE);
  status.set_api_records(vprof::trace::API_RECORDS_NONE);
  status.add_activity_kinds("CONCURRENT_KERNEL");
  trace_.AddPacket(std::move(packet));
  api_calls_ = false;
}

void StepTrace::DeviceMemory(uint64_t used_bytes, int64_t at_us, uint32_t device) {
  vprof::trace::TracePacket packet;
  vprof::trace::DeviceMemorySample& sample = *packet.mutable_device_memory()->add_sample();
  sample.set_time_ns(At(at_us));
  sample.set_device(device);
  sample.set_used_bytes(used_bytes);
  sample.set_total_bytes(uint64_t{80} << 30);
  trace_.AddPacket(std::move(packet));
}

void StepTrace::MemorySampling(bool sampling, const std::string& why_not) {
  vprof::trace::TracePacket packet;
  vprof::trace::DeviceMemorySampling& status = *packet.mutable_device_memory_sampling();
  status.set_sampling(sampling);
  status.set_why_not(why_not);
  status.set_interval_ns(250 * kStepUs);
  trace_.AddPacket(std::move(packet));
}

void StepTrace::Allocate(int64_t bytes, int64_t at_us) { MemoryCall(bytes, at_us, false); }

void StepTrace::Release(int64_t bytes, int64_t at_us) { MemoryCall(bytes, at_us, true); }

void StepTrace::MemoryCall(int64_t bytes, int64_t at_us, bool release) {
  const uint32_t correlation = Call(release ? "cudaFree_v3020" : "cudaMalloc_v3020", at_us, 1);
  vprof::trace::GpuMemoryOp& op = *gpu_.add_memory();
  op.set_operation(release ? 2 : 1);
  op.set_memory_kind(3);
  op.set_address(0x7f0000000000);
  op.set_bytes(static_cast<uint64_t>(bytes));
  op.set_timestamp_ns(At(at_us + 1));
  op.set_correlation_id(correlation);
}

void StepTrace::FlushNvtx() {
  vprof::trace::TracePacket packet;
  *packet.mutable_nvtx_batch() = nvtx_;
  trace_.AddPacket(std::move(packet));
  nvtx_.clear_range();
}

void StepTrace::FlushGpu() {
  vprof::trace::TracePacket packet;
  *packet.mutable_gpu_batch() = gpu_;
  trace_.AddPacket(std::move(packet));
  gpu_.Clear();
}

void StepTrace::FlushNccl() {
  if (!nccl_.empty()) trace_.AddBatch(nccl_);
  nccl_.clear();
}

// The builder's RunHeader has no environment: the file gets one that has,
// framed the same way, before the builder's other packets.
void StepTrace::WriteTo(const std::string& path, const std::map<std::string, std::string>& env) {
  FlushNvtx();
  FlushGpu();
  FlushNccl();
  trace_.AddFooter();
  vprof::trace::TracePacket packet;
  packet.set_sequence(1);
  vprof::trace::RunHeader& header = *packet.mutable_run_header();
  header.set_format_version(vprof::schema::kFormatVersion);
  header.set_host(host_);
  header.set_pid(pid_);
  header.set_clock(vprof::trace::CLOCK_DOMAIN_MONOTONIC);
  header.mutable_rank()->set_rank(rank_);
  if (!deep_schedule_.empty()) header.mutable_settings()->set_deep_capture(deep_schedule_);
  for (const auto& [name, value] : env) {
    vprof::trace::EnvVar& variable = *header.add_env();
    variable.set_name(name);
    variable.set_value(value);
  }
  const std::string rest = trace_.bytes().substr(trace_.packet_offsets().at(1));
  std::ofstream out(path, std::ios::binary);
  out << FramePacket(packet.SerializeAsString()) << rest;
}

}  // namespace vprof::reporter::testing
