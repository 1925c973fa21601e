#include "trace_file_builder.h"

#include <fstream>
#include <stdexcept>

namespace vprof::reporter::testing {

std::string FramePacket(const std::string& serialized_packet) {
  std::string framed(1, '\x0a');  // field 1, wire type 2
  uint64_t length = serialized_packet.size();
  do {
    uint8_t byte = length & 0x7F;
    length >>= 7;
    if (length != 0) byte |= 0x80;
    framed.push_back(static_cast<char>(byte));
  } while (length != 0);
  return framed + serialized_packet;
}

TraceFileBuilder::TraceFileBuilder(std::string host, uint32_t pid, std::optional<int32_t> rank,
                                   uint32_t format_version) {
  vprof::trace::TracePacket packet;
  vprof::trace::RunHeader& header = *packet.mutable_run_header();
  header.set_format_version(format_version);
  header.set_host(std::move(host));
  header.set_pid(pid);
  header.set_clock(vprof::trace::CLOCK_DOMAIN_MONOTONIC);
  if (rank) header.mutable_rank()->set_rank(*rank);
  AddPacket(std::move(packet));
}

vprof::trace::RunHeader RankHeader(std::string host, uint32_t pid, int32_t rank,
                                   std::optional<int32_t> world_size) {
  vprof::trace::RunHeader header;
  header.set_format_version(vprof::schema::kFormatVersion);
  header.set_host(std::move(host));
  header.set_pid(pid);
  header.set_clock(vprof::trace::CLOCK_DOMAIN_MONOTONIC);
  header.mutable_rank()->set_rank(rank);
  if (world_size) header.mutable_rank()->set_world_size(*world_size);
  return header;
}

TraceFileBuilder::TraceFileBuilder(vprof::trace::RunHeader header) {
  vprof::trace::TracePacket packet;
  *packet.mutable_run_header() = std::move(header);
  AddPacket(std::move(packet));
}

vprof::trace::NcclEvent TraceFileBuilder::Event(std::string_view function, uint64_t comm_id,
                                                uint32_t comm_size, uint32_t comm_rank,
                                                uint64_t seq, uint64_t bytes, uint64_t enter_ns,
                                                uint64_t exit_ns) {
  vprof::trace::NcclEvent event;
  event.set_function_iid(Intern(function));
  event.set_comm_id(comm_id);
  event.set_comm_size(comm_size);
  event.set_comm_rank(comm_rank);
  event.set_seq(seq);
  event.set_count(bytes / 4);
  event.set_datatype(7);  // ncclFloat32
  event.set_bytes(bytes);
  event.set_enter_ns(enter_ns);
  event.set_exit_ns(exit_ns);
  return event;
}

void TraceFileBuilder::AddCommunicator(uint64_t comm_id, uint32_t nranks, uint32_t rank,
                                       std::string_view created_by, uint64_t create_begin_ns,
                                       uint64_t create_end_ns, uint64_t parent_comm_id) {
  vprof::trace::TracePacket packet;
  vprof::trace::Communicator& comm = *packet.mutable_communicator();
  comm.set_comm_id(comm_id);
  comm.set_nranks(nranks);
  comm.set_rank(rank);
  comm.set_created_by_iid(Intern(created_by));
  comm.set_create_begin_ns(create_begin_ns);
  comm.set_create_end_ns(create_end_ns);
  comm.set_parent_comm_id(parent_comm_id);
  AddPacket(std::move(packet));
}

void TraceFileBuilder::AddClockSample(uint64_t clock_ns, uint64_t realtime_ns) {
  vprof::trace::TracePacket packet;
  packet.mutable_clock_sample()->set_clock_ns(clock_ns);
  packet.mutable_clock_sample()->set_realtime_ns(realtime_ns);
  AddPacket(std::move(packet));
}

void TraceFileBuilder::AddBatch(const std::vector<vprof::trace::NcclEvent>& events,
                                uint64_t dropped) {
  vprof::trace::TracePacket packet;
  vprof::trace::EventBatch& batch = *packet.mutable_event_batch();
  batch.set_tid(1);
  batch.set_dropped(dropped);
  for (const auto& event : events) *batch.add_nccl() = event;
  AddPacket(std::move(packet));
}

void TraceFileBuilder::AddFooter(vprof::trace::EndReason reason, uint64_t dropped) {
  vprof::trace::TracePacket packet;
  vprof::trace::Footer& footer = *packet.mutable_footer();
  footer.set_reason(reason);
  vprof::trace::KindCount& nccl = *footer.add_counts();
  nccl.set_kind("nccl");
  nccl.set_dropped(dropped);
  AddPacket(std::move(packet));
}

void TraceFileBuilder::AddPacket(vprof::trace::TracePacket packet) {
  packet.set_sequence(next_sequence_++);
  packet_offsets_.push_back(bytes_.size());
  bytes_ += FramePacket(packet.SerializeAsString());
}

void TraceFileBuilder::AddRawBytes(std::string_view bytes) {
  packet_offsets_.push_back(bytes_.size());
  bytes_ += bytes;
}

void TraceFileBuilder::WriteTo(const std::string& path, std::optional<size_t> size) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes_.data(), static_cast<std::streamsize>(size.value_or(bytes_.size())));
  if (!file) throw std::runtime_error("cannot write " + path);
}

uint64_t TraceFileBuilder::Intern(std::string_view name) {
  if (auto found = iids_.find(name); found != iids_.end()) return found->second;
  const uint64_t iid = iids_.size() + 1;
  iids_.emplace(std::string(name), iid);
  vprof::trace::TracePacket packet;
  packet.mutable_interned_string()->set_iid(iid);
  packet.mutable_interned_string()->set_str(std::string(name));
  AddPacket(std::move(packet));
  return iid;
}

}  // namespace vprof::reporter::testing
