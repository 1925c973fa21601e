#include "reporter/trace/trace_reader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/wire_format_lite.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "reporter/base/safe_file.h"
#include "reporter/base/units.h"

namespace vprof::reporter {
namespace {

// Field 1 (Trace.packet), wire type 2 (length-delimited).
constexpr uint32_t kPacketTag = (1 << 3) | 2;
// A report keeps every trace open at once (1,024 of them for 1,024 ranks):
// 16 KiB each keeps that to 16 MiB, and reads stay few per packet.
constexpr int kReadBlockBytes = 1 << 14;
constexpr uint64_t kMaxVarint32Bytes = 5;
constexpr uint64_t kMaxVarint64Bytes = 10;
// TracePacket.sequence: field 1, a varint.
constexpr uint32_t kSequenceTag = (1 << 3) | 0;

// A packet's sequence number, read from its bytes whether or not they parse
// (vprof writes it first, so this reads one field); 0 when it has none.
uint64_t SequenceOf(const void* data, int size) {
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data), size);
  for (uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
    uint64_t sequence = 0;
    if (tag == kSequenceTag) return in.ReadVarint64(&sequence) ? sequence : 0;
    if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) return 0;
  }
  return 0;
}

}  // namespace

TraceReader::TraceReader(const std::string& path) {
  // Only a regular file, not through a link: a FIFO would stall the report
  // and a link to a device could be read for ever.
  std::string refusal;
  fd_ = OpenRegularFile(path, &refusal);
  if (!refusal.empty()) {
    Stop(ReadProblem::kUnreadable, std::move(refusal));
    return;
  }
  struct stat info {};
  if (fd_ < 0 || ::fstat(fd_, &info) != 0) {
    std::string detail = std::string("cannot open: ") + std::strerror(errno);
    // A report keeps one trace per process open; vprof raises its soft limit
    // to the hard one at start (main.cc), so only the hard limit is left.
    if (errno == EMFILE) {
      detail += " (a report opens every trace at once: raise the hard limit, ulimit -Hn)";
    }
    Stop(ReadProblem::kUnreadable, std::move(detail));
    return;
  }
  file_size_ = static_cast<uint64_t>(info.st_size);
  stream_ = std::make_unique<google::protobuf::io::FileInputStream>(fd_, kReadBlockBytes);
}

TraceReader::~TraceReader() {
  stream_.reset();
  if (fd_ >= 0) ::close(fd_);
}

bool TraceReader::Next(vprof::trace::TracePacket* packet) {
  class MessageParser final : public PacketParser {
   public:
    explicit MessageParser(vprof::trace::TracePacket* packet) : packet_(packet) {}
    bool Parse(const void* data, int size) override { return packet_->ParseFromArray(data, size); }

   private:
    vprof::trace::TracePacket* packet_;
  };
  MessageParser parser(packet);
  return Next(parser);
}

bool TraceReader::Next(PacketParser& parser) {
  while (!stopped_) {
    switch (ReadFrame(parser)) {
      case Frame::kParsed:
        ++packets_read_;
        return true;
      case Frame::kUnparsed:
        if (unreadable_packets_++ == 0) first_unreadable_offset_ = offset_;
        break;
      case Frame::kStopped:
        return false;
    }
  }
  return false;
}

TraceReader::Frame TraceReader::ReadFrame(PacketParser& parser) {
  offset_ = static_cast<uint64_t>(stream_->ByteCount());
  if (offset_ >= file_size_) return Stop(ReadProblem::kNone, "");

  // A fresh CodedInputStream per packet: its byte limit (INT_MAX) then bounds
  // one packet, not the file. On destruction it hands unread bytes back to
  // stream_, so ByteCount() stays exact.
  google::protobuf::io::CodedInputStream in(stream_.get());
  const uint64_t left = file_size_ - offset_;
  const uint32_t tag = in.ReadTag();
  if (tag != kPacketTag) {
    if (stream_->GetErrno() != 0) {
      return Stop(ReadProblem::kUnreadable,
                  std::string("read error: ") + std::strerror(stream_->GetErrno()));
    }
    if (tag == 0 && left < kMaxVarint32Bytes) {
      return Stop(ReadProblem::kTruncated, "incomplete packet tag");
    }
    char detail[96];
    std::snprintf(detail, sizeof detail, "expected a packet (tag 0x0a), found tag 0x%x", tag);
    return Stop(ReadProblem::kCorrupt, detail);
  }
  // Read as 64 bits, so that a hostile length is reported as written, not cut.
  uint64_t length = 0;
  if (!in.ReadVarint64(&length)) {
    if (left <= 1 + kMaxVarint64Bytes) {
      return Stop(ReadProblem::kTruncated, "incomplete packet length");
    }
    return Stop(ReadProblem::kCorrupt, "packet length is not a varint");
  }
  const uint64_t after_header = left - static_cast<uint64_t>(in.CurrentPosition());
  if (length > after_header) {
    return Stop(ReadProblem::kTruncated, "incomplete packet: it declares " +
                                             std::to_string(length) + " bytes, " +
                                             std::to_string(after_header) + " remain");
  }
  if (length > kMaxPacketBytes) {
    return Stop(ReadProblem::kCorrupt, "it declares " + std::to_string(length) + " bytes (" +
                                           FormatBytes(length) + "; limit " +
                                           FormatBytes(kMaxPacketBytes) + " a packet)");
  }
  // Parsing a whole buffer, unlike parsing from the stream under a limit,
  // rejects a packet that ends early (a zero tag). Most packets lie whole in
  // the stream's buffer and parse in place; one that straddles a refill is
  // copied into packet_bytes_ first.
  const void* buffered = nullptr;
  int buffered_bytes = 0;
  const int packet_bytes = static_cast<int>(length);
  const bool in_place =
      in.GetDirectBufferPointer(&buffered, &buffered_bytes) && buffered_bytes >= packet_bytes;
  if (!in_place && !in.ReadString(&packet_bytes_, packet_bytes)) {
    return Stop(ReadProblem::kUnreadable, "read error inside a packet");
  }
  const void* bytes = in_place ? buffered : packet_bytes_.data();
  NoteSequence(bytes, packet_bytes);
  const bool parsed = parser.Parse(bytes, packet_bytes);
  if (in_place) in.Skip(packet_bytes);
  // The frame's length says where the next packet starts, whatever is wrong
  // inside this one: reading goes on there.
  return parsed ? Frame::kParsed : Frame::kUnparsed;
}

void TraceReader::NoteSequence(const void* data, int size) {
  const uint64_t sequence = SequenceOf(data, size);
  if (sequence == 0) return;
  if (sequence > last_sequence_ && sequence - last_sequence_ > 1) {
    if (gaps_.gaps++ == 0) {
      gaps_.first_before = last_sequence_;
      gaps_.first_after = sequence;
      gaps_.first_offset = offset_;
    }
    gaps_.missing_packets += sequence - last_sequence_ - 1;
    gaps_.last_missing = sequence - last_sequence_ - 1;
    gaps_.last_offset = offset_;
  }
  last_sequence_ = sequence;
}

TraceReader::Frame TraceReader::Stop(ReadProblem problem, std::string detail) {
  stopped_ = true;
  problem_ = problem;
  problem_detail_ = std::move(detail);
  return Frame::kStopped;
}

}  // namespace vprof::reporter
