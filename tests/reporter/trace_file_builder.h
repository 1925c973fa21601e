// Builds trace files in memory exactly as the capture side lays them out on
// disk (each TracePacket as Trace field 1: tag 0x0A, varint length, bytes), so
// reporter tests exercise the real file format without the capture side.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vprof_trace.pb.h"
#include "vprof_trace_fields.h"

namespace vprof::reporter::testing {

class TraceFileBuilder {
 public:
  // Starts the file with a RunHeader (the first packet of every trace).
  TraceFileBuilder(std::string host, uint32_t pid, std::optional<int32_t> rank = std::nullopt,
                   uint32_t format_version = vprof::schema::kFormatVersion);
  // Starts the file with `header` as given.
  explicit TraceFileBuilder(vprof::trace::RunHeader header);

  // An NcclEvent of `function`, interning the name (an InternedString packet)
  // the first time it is used, as the capture side does.
  vprof::trace::NcclEvent Event(std::string_view function, uint64_t comm_id, uint32_t comm_size,
                                uint32_t comm_rank, uint64_t seq, uint64_t bytes, uint64_t enter_ns,
                                uint64_t exit_ns);

  void AddCommunicator(uint64_t comm_id, uint32_t nranks, uint32_t rank,
                       std::string_view created_by, uint64_t create_begin_ns = 0,
                       uint64_t create_end_ns = 0, uint64_t parent_comm_id = 0);
  void AddClockSample(uint64_t clock_ns, uint64_t realtime_ns);
  void AddBatch(const std::vector<vprof::trace::NcclEvent>& events, uint64_t dropped = 0);
  void AddFooter(vprof::trace::EndReason reason = vprof::trace::END_REASON_EXIT,
                 uint64_t dropped = 0);
  // A packet given whole; sequence numbers are the builder's.
  void AddPacket(vprof::trace::TracePacket packet);
  // Bytes that are not a well-formed packet, for corruption tests.
  void AddRawBytes(std::string_view bytes);

  const std::string& bytes() const { return bytes_; }
  // Where each packet (or raw chunk) starts, in the order added.
  const std::vector<uint64_t>& packet_offsets() const { return packet_offsets_; }
  // Writes the file; with `size`, only its first `size` bytes (a cut file).
  void WriteTo(const std::string& path, std::optional<size_t> size = std::nullopt) const;

  // The iid of `name`, adding its InternedString packet the first time.
  uint64_t Intern(std::string_view name);

 private:
  std::string bytes_;
  std::vector<uint64_t> packet_offsets_;
  uint64_t next_sequence_ = 1;
  std::map<std::string, uint64_t, std::less<>> iids_;
};

// The RunHeader of a rank process: current format, CLOCK_MONOTONIC, `rank`
// and, when given, `world_size`.
vprof::trace::RunHeader RankHeader(std::string host, uint32_t pid, int32_t rank,
                                   std::optional<int32_t> world_size = std::nullopt);

// Frames one serialized TracePacket as the file holds it.
std::string FramePacket(const std::string& serialized_packet);

}  // namespace vprof::reporter::testing
