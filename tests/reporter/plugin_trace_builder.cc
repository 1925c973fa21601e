#include "plugin_trace_builder.h"

#include <fstream>
#include <stdexcept>

namespace vprof::reporter::testing {
namespace {

// The file's first packet (its RunHeader) with the environment added; the
// rest of the file as it was.
std::string WithEnvironment(const TraceFileBuilder& trace,
                            const std::map<std::string, std::string>& env) {
  const std::string& bytes = trace.bytes();
  const uint64_t header_end = trace.packet_offsets().at(1);
  // Framing: tag 0x0A, then the varint length of the packet.
  size_t at = 1;
  while (static_cast<uint8_t>(bytes[at]) & 0x80) ++at;
  ++at;
  vprof::trace::TracePacket header;
  if (!header.ParseFromString(bytes.substr(at, header_end - at))) {
    throw std::runtime_error("the builder's RunHeader does not parse");
  }
  for (const auto& [name, value] : env) {
    vprof::trace::EnvVar& variable = *header.mutable_run_header()->add_env();
    variable.set_name(name);
    variable.set_value(value);
  }
  return FramePacket(header.SerializeAsString()) + bytes.substr(header_end);
}

}  // namespace

PluginTraceBuilder::PluginTraceBuilder(std::string host, uint32_t pid, std::optional<int32_t> rank)
    : trace_(std::move(host), pid, rank) {}

void PluginTraceBuilder::AddInjection(bool attached, uint32_t version, std::string detail,
                                      std::string found, bool claimed) {
  vprof::trace::TracePacket packet;
  vprof::trace::InjectionStatus& status = *packet.mutable_injection();
  status.set_hook(vprof::trace::INJECTION_HOOK_NCCL_PROFILER);
  status.set_found(std::move(found));
  status.set_claimed(claimed);
  status.set_attached(attached);
  status.set_version(attached ? version : 0);
  status.set_detail(std::move(detail));
  trace_.AddPacket(std::move(packet));
}

void PluginTraceBuilder::AddPluginComm(uint64_t context_id, uint64_t comm_hash,
                                       std::string_view name, uint32_t nranks, uint32_t rank) {
  vprof::trace::NcclPluginBatch batch;
  vprof::trace::NcclPluginComm& comm = *batch.add_comm();
  comm.set_context_id(context_id);
  comm.set_comm_hash(comm_hash);
  if (!name.empty()) comm.set_name_iid(trace_.Intern(name));
  comm.set_nnodes(1);
  comm.set_nranks(nranks);
  comm.set_rank(rank);
  comm.set_init_ns(500);
  AddPluginBatch(std::move(batch));
}

void PluginTraceBuilder::AddPluginColls(uint64_t context_id, std::string_view func,
                                        std::string_view algo, std::string_view proto,
                                        uint32_t channels, uint64_t n, bool graph_captured,
                                        uint64_t dropped) {
  vprof::trace::NcclPluginBatch batch;
  batch.set_dropped(dropped);
  const uint64_t func_iid = trace_.Intern(func);
  const uint64_t algo_iid = trace_.Intern(algo);
  const uint64_t proto_iid = trace_.Intern(proto);
  for (uint64_t i = 0; i < n; ++i) {
    vprof::trace::NcclPluginEvent& event = *batch.add_event();
    event.set_type(vprof::trace::NCCL_PLUGIN_EVENT_COLL);
    event.set_context_id(context_id);
    event.set_event_id(next_event_id_++);
    event.set_func_iid(func_iid);
    event.set_seq(i + 1);
    event.set_algo_iid(algo_iid);
    event.set_proto_iid(proto_iid);
    event.set_channels(channels);
    event.set_graph_captured(graph_captured);
  }
  AddPluginBatch(std::move(batch));
}

void PluginTraceBuilder::AddPluginP2ps(uint64_t context_id, std::string_view func, uint64_t n) {
  vprof::trace::NcclPluginBatch batch;
  const uint64_t func_iid = trace_.Intern(func);
  for (uint64_t i = 0; i < n; ++i) {
    vprof::trace::NcclPluginEvent& event = *batch.add_event();
    event.set_type(vprof::trace::NCCL_PLUGIN_EVENT_P2P);
    event.set_context_id(context_id);
    event.set_event_id(next_event_id_++);
    event.set_func_iid(func_iid);
  }
  AddPluginBatch(std::move(batch));
}

void PluginTraceBuilder::AddCommunicator(uint64_t comm_id, uint32_t nranks, uint32_t rank) {
  trace_.AddCommunicator(comm_id, nranks, rank, "ncclCommInitRank", 100, 200);
}

void PluginTraceBuilder::AddWrapperCalls(std::string_view function, uint64_t comm_id,
                                         uint32_t comm_size, uint32_t comm_rank, uint64_t first_seq,
                                         uint64_t n) {
  std::vector<vprof::trace::NcclEvent> events;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t enter = 1000 + (first_seq + i) * 10000;
    events.push_back(trace_.Event(function, comm_id, comm_size, comm_rank, first_seq + i, 4096,
                                  enter, enter + 500));
  }
  trace_.AddBatch(events);
}

void PluginTraceBuilder::AddKernels(std::string_view name, uint64_t n, uint64_t duration_ns,
                                    uint32_t graph_id) {
  vprof::trace::TracePacket packet;
  const uint64_t name_iid = trace_.Intern(name);
  for (uint64_t i = 0; i < n; ++i) {
    vprof::trace::GpuKernel& kernel = *packet.mutable_gpu_batch()->add_kernel();
    kernel.set_name_iid(name_iid);
    kernel.set_start_ns(1000 + i * duration_ns);
    kernel.set_duration_ns(duration_ns);
    kernel.set_graph_id(graph_id);
  }
  trace_.AddPacket(std::move(packet));
}

void PluginTraceBuilder::AddApiCalls(std::string_view name, uint64_t n, uint64_t duration_ns) {
  vprof::trace::TracePacket packet;
  const uint64_t name_iid = trace_.Intern(name);
  for (uint64_t i = 0; i < n; ++i) {
    vprof::trace::ApiCall& api = *packet.mutable_gpu_batch()->add_api();
    api.set_name_iid(name_iid);
    api.set_start_ns(1000 + i * duration_ns);
    api.set_duration_ns(duration_ns);
  }
  trace_.AddPacket(std::move(packet));
}

void PluginTraceBuilder::WriteTo(const std::string& path, uint64_t dropped,
                                 const std::map<std::string, uint64_t>& other_dropped) {
  vprof::trace::TracePacket footer;
  footer.mutable_footer()->set_reason(vprof::trace::END_REASON_EXIT);
  std::map<std::string, uint64_t> kinds = other_dropped;
  kinds["nccl"] = dropped;
  for (const auto& [kind, count] : kinds) {
    vprof::trace::KindCount& counts = *footer.mutable_footer()->add_counts();
    counts.set_kind(kind);
    counts.set_dropped(count);
  }
  trace_.AddPacket(std::move(footer));
  const std::string bytes = WithEnvironment(trace_, env_);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw std::runtime_error("cannot write " + path);
}

void PluginTraceBuilder::AddPluginBatch(vprof::trace::NcclPluginBatch batch) {
  vprof::trace::TracePacket packet;
  *packet.mutable_nccl_plugin_batch() = std::move(batch);
  trace_.AddPacket(std::move(packet));
}

}  // namespace vprof::reporter::testing
