// Streams the packets of one trace file: a sequence of field-1 length-delimited
// TracePackets (tag 0x0A, varint length, bytes). One packet is in memory at a
// time, whatever the file's length.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vprof_trace.pb.h"

namespace google::protobuf::io {
class FileInputStream;
}

namespace vprof::reporter {

// The largest packet a reader takes: vprof writes none over its 1 MiB encode
// buffer (interpose/core/trace_writer.cc), so 64 times that leaves room for other
// writers, and a hostile length is refused before anything is sized by it.
inline constexpr uint64_t kMaxPacketBytes = uint64_t{64} << 20;

// Packets missing from a file: TracePacket.sequence counts them from 1 with
// no gap, so a jump says how many were lost and where.
struct SequenceGaps {
  uint64_t missing_packets = 0;
  uint64_t gaps = 0;
  // The first gap: the sequence numbers on either side, and the byte offset
  // of the packet after it.
  uint64_t first_before = 0;
  uint64_t first_after = 0;
  uint64_t first_offset = 0;
  // The last gap: how many packets, and the offset of the packet after it.
  uint64_t last_missing = 0;
  uint64_t last_offset = 0;
};

// Why reading stopped before the end of the file.
enum class ReadProblem : uint8_t {
  kNone,        // every byte formed whole packets
  kTruncated,   // the last packet is incomplete: the file was cut short
  kCorrupt,     // bytes that are not a packet (a wrong tag or length)
  kUnreadable,  // the file could not be opened or read
};

// What TraceReader::Next does with a packet's bytes, which are valid only
// during the call.
class PacketParser {
 public:
  // False when the bytes are not a TracePacket.
  virtual bool Parse(const void* data, int size) = 0;

 protected:
  ~PacketParser() = default;
};

class TraceReader {
 public:
  explicit TraceReader(const std::string& path);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // Reads the next packet into *packet. False at the end of the file or at
  // the first bytes that do not frame a packet; problem() then says which. A
  // framed packet that does not parse is skipped and counted
  // (unreadable_packets()): its length still says where the next one starts.
  bool Next(vprof::trace::TracePacket* packet);
  // The same, the packet's bytes going to `parser`.
  bool Next(PacketParser& parser);

  // Byte offset of the packet Next() last returned or, once reading stopped,
  // of the first byte that did not form a whole packet (the file size at a
  // clean end).
  uint64_t offset() const { return offset_; }
  uint64_t packets_read() const { return packets_read_; }
  uint64_t unreadable_packets() const { return unreadable_packets_; }
  // Byte offset of the first of them; 0 when there is none.
  uint64_t first_unreadable_offset() const { return first_unreadable_offset_; }
  // Of the framed packets read so far (parsed or not); packets without a
  // sequence number (0) are not counted.
  const SequenceGaps& sequence_gaps() const { return gaps_; }
  ReadProblem problem() const { return problem_; }
  // What went wrong, for people; empty when problem() is kNone.
  const std::string& problem_detail() const { return problem_detail_; }

 private:
  enum class Frame : uint8_t { kParsed, kUnparsed, kStopped };
  Frame ReadFrame(PacketParser& parser);
  Frame Stop(ReadProblem problem, std::string detail);
  void NoteSequence(const void* data, int size);

  int fd_ = -1;
  uint64_t file_size_ = 0;
  std::unique_ptr<google::protobuf::io::FileInputStream> stream_;
  std::string packet_bytes_;  // a packet that straddles two buffers, reused
  uint64_t offset_ = 0;
  uint64_t packets_read_ = 0;
  uint64_t unreadable_packets_ = 0;
  uint64_t first_unreadable_offset_ = 0;
  uint64_t last_sequence_ = 0;
  SequenceGaps gaps_;
  bool stopped_ = false;
  ReadProblem problem_ = ReadProblem::kNone;
  std::string problem_detail_;
};

}  // namespace vprof::reporter
