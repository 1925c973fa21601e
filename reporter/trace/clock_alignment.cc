#include "reporter/trace/clock_alignment.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/wire_format_lite.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "reporter/base/safe_file.h"

namespace vprof::reporter {
namespace {

using google::protobuf::internal::WireFormatLite;

// Field 1 (Trace.packet), wire type 2, as in trace_reader.cc.
constexpr uint32_t kPacketTag = (1 << 3) | 2;
constexpr int kReadBlockBytes = 1 << 16;

// Reads one packet's fields (`in` limited to it), adding the offset of the
// clock pair it carries. Only the RunHeader and ClockSample fields are
// parsed; event and GPU batches, the bulk of a file, are skipped unparsed.
// False when the bytes are not well-formed fields.
bool AddClockPairOf(google::protobuf::io::CodedInputStream& in, std::vector<int64_t>& offsets) {
  using vprof::trace::TracePacket;
  TracePacket packet;
  while (const uint32_t tag = in.ReadTag()) {
    const bool message =
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    bool read = false;
    if (message && field == TracePacket::kRunHeaderFieldNumber) {
      read = WireFormatLite::ReadMessage(&in, packet.mutable_run_header());
    } else if (message && field == TracePacket::kClockSampleFieldNumber) {
      read = WireFormatLite::ReadMessage(&in, packet.mutable_clock_sample());
    } else {
      read = WireFormatLite::SkipField(&in, tag);
    }
    if (!read) return false;
  }
  if (!in.ConsumedEntireMessage()) return false;
  if (const auto offset = ClockOffsetIn(packet)) offsets.push_back(*offset);
  return true;
}

}  // namespace

std::optional<int64_t> ClockOffsetIn(const vprof::trace::TracePacket& packet) {
  uint64_t realtime_ns = 0, clock_ns = 0;
  if (packet.has_run_header()) {
    realtime_ns = packet.run_header().start_realtime_ns();
    clock_ns = packet.run_header().start_ns();
  } else if (packet.has_clock_sample()) {
    realtime_ns = packet.clock_sample().realtime_ns();
    clock_ns = packet.clock_sample().clock_ns();
  }
  if (realtime_ns == 0) return std::nullopt;
  return static_cast<int64_t>(realtime_ns - clock_ns);
}

int64_t MedianOffset(std::vector<int64_t> offsets) {
  std::sort(offsets.begin(), offsets.end());
  const size_t middle = offsets.size() / 2;
  if (offsets.size() % 2 == 1) return offsets[middle];
  // In 128 bits: offsets of hosts whose clocks disagree wildly (1970 against
  // today) are far apart, and their difference may not fit in 64.
  return static_cast<int64_t>((static_cast<__int128>(offsets[middle - 1]) + offsets[middle]) / 2);
}

std::optional<int64_t> ScanMedianClockOffset(const std::string& path) {
  std::string refusal;  // the main pass reports it
  const int fd = OpenRegularFile(path, &refusal);
  if (fd < 0) return std::nullopt;
  std::vector<int64_t> offsets;
  {
    google::protobuf::io::FileInputStream stream(fd, kReadBlockBytes);
    bool framed = true;
    while (framed) {
      // A fresh CodedInputStream per packet, as TraceReader does: its byte
      // limit then bounds one packet, not the file.
      google::protobuf::io::CodedInputStream in(&stream);
      uint32_t length = 0;
      if (in.ReadTag() != kPacketTag || !in.ReadVarint32(&length) || length > INT32_MAX) break;
      const auto limit = in.PushLimit(static_cast<int>(length));
      framed = AddClockPairOf(in, offsets);
      in.PopLimit(limit);
    }
  }
  ::close(fd);
  if (offsets.empty()) return std::nullopt;
  return MedianOffset(std::move(offsets));
}

}  // namespace vprof::reporter
