// Reading trace files packet by packet, stopping at the right byte when a
// file is cut or corrupt, and skipping framed packets that do not parse.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "reporter/trace/trace_reader.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using vprof::reporter::testing::FramePacket;
using vprof::reporter::testing::ScratchDir;
using vprof::reporter::testing::TraceFileBuilder;

namespace {

// A header, an interned name, a one-event batch and a footer: 4 packets.
TraceFileBuilder FourPackets() {
  TraceFileBuilder trace("node1", 42, 0);
  trace.AddBatch({trace.Event("ncclAllReduce", 7, 1, 0, 1, 4096, 100, 200)});
  trace.AddFooter();
  return trace;
}

// Writes `trace`, a RunHeader and then bytes that are not a whole packet,
// and reads it: the header comes back, then nothing more.
std::unique_ptr<TraceReader> ReadHeaderThenStop(const ScratchDir& dir,
                                                const TraceFileBuilder& trace) {
  trace.WriteTo(dir.File("t.vtrace"));
  auto reader = std::make_unique<TraceReader>(dir.File("t.vtrace"));
  vprof::trace::TracePacket packet;
  CHECK(reader->Next(&packet));
  CHECK(packet.has_run_header());
  CHECK_FALSE(reader->Next(&packet));
  return reader;
}

}  // namespace

TEST_CASE("a whole file yields every packet, then a clean end") {
  ScratchDir dir;
  const TraceFileBuilder trace = FourPackets();
  trace.WriteTo(dir.File("a.vtrace"));
  TraceReader reader(dir.File("a.vtrace"));
  vprof::trace::TracePacket packet;
  std::vector<uint64_t> sequences;
  std::vector<uint64_t> offsets;
  while (reader.Next(&packet)) {
    sequences.push_back(packet.sequence());
    offsets.push_back(reader.offset());
  }
  CHECK(sequences == std::vector<uint64_t>{1, 2, 3, 4});
  CHECK(offsets == trace.packet_offsets());
  CHECK(reader.problem() == ReadProblem::kNone);
  CHECK(reader.offset() == trace.bytes().size());
  CHECK(packet.has_footer());
}

TEST_CASE("a file cut inside a packet stops at that packet's first byte") {
  ScratchDir dir;
  const TraceFileBuilder trace = FourPackets();
  const uint64_t batch_start = trace.packet_offsets()[2];
  // Cut in the middle of the batch, and just after its tag byte.
  for (uint64_t cut : {batch_start + 5, batch_start + 1}) {
    trace.WriteTo(dir.File("cut.vtrace"), cut);
    TraceReader reader(dir.File("cut.vtrace"));
    vprof::trace::TracePacket packet;
    uint64_t packets = 0;
    while (reader.Next(&packet)) ++packets;
    CHECK(packets == 2);
    CHECK(reader.problem() == ReadProblem::kTruncated);
    CHECK(reader.offset() == batch_start);
  }
}

TEST_CASE("a framed packet that does not parse is skipped and counted; the rest are read") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  // Length 3, then a tag with wire type 7, which does not exist.
  trace.AddRawBytes(std::string("\x0a\x03\x0f\x01\x02", 5));
  trace.AddBatch({trace.Event("ncclAllReduce", 7, 1, 0, 1, 4096, 100, 200)});
  trace.AddFooter();
  trace.WriteTo(dir.File("bad.vtrace"));
  TraceReader reader(dir.File("bad.vtrace"));
  vprof::trace::TracePacket packet;
  std::vector<uint64_t> offsets;
  bool batch = false, footer = false;
  while (reader.Next(&packet)) {
    offsets.push_back(reader.offset());
    batch = batch || packet.has_event_batch();
    footer = footer || packet.has_footer();
  }
  std::vector<uint64_t> whole = trace.packet_offsets();
  const uint64_t bad = whole[1];
  whole.erase(whole.begin() + 1);
  CHECK(offsets == whole);
  CHECK(batch);
  CHECK(footer);
  CHECK(reader.problem() == ReadProblem::kNone);
  CHECK(reader.unreadable_packets() == 1);
  CHECK(reader.first_unreadable_offset() == bad);
  CHECK(reader.packets_read() == whole.size());
}

TEST_CASE("a packet that ends early (a zero tag inside it) is skipped") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  trace.AddRawBytes(FramePacket(std::string("\x08\x05\x00\x00", 4)));
  trace.AddRawBytes(FramePacket(std::string("\x08\x05\x00\x00", 4)));
  const auto reader = ReadHeaderThenStop(dir, trace);
  CHECK(reader->problem() == ReadProblem::kNone);
  CHECK(reader->unreadable_packets() == 2);
  CHECK(reader->first_unreadable_offset() == trace.packet_offsets()[1]);
}

TEST_CASE("a frame that runs past the end of the file is still a cut") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  trace.AddRawBytes(std::string("\x0a\x7f\x0f\x01\x02", 5));  // declares 127 bytes
  const auto reader = ReadHeaderThenStop(dir, trace);
  CHECK(reader->problem() == ReadProblem::kTruncated);
  CHECK(reader->unreadable_packets() == 0);
  CHECK(reader->offset() == trace.packet_offsets()[1]);
}

TEST_CASE("a 64-bit frame length is reported as written") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  // Tag, then 2^64 - 1 as a 10-byte varint, then bytes enough not to look cut in the length.
  trace.AddRawBytes(std::string("\x0a", 1) + std::string(9, '\xff') + "\x01" + "padding");
  const auto reader = ReadHeaderThenStop(dir, trace);
  CHECK(reader->problem() == ReadProblem::kTruncated);
  CHECK(reader->problem_detail().find("declares 18446744073709551615 bytes") != std::string::npos);
}

TEST_CASE("bytes that are not a packet tag are corrupt") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  trace.AddRawBytes("garbage that is long enough");
  const auto reader = ReadHeaderThenStop(dir, trace);
  CHECK(reader->problem() == ReadProblem::kCorrupt);
  CHECK(reader->problem_detail().find("tag") != std::string::npos);
  CHECK(reader->offset() == trace.packet_offsets()[1]);
}

TEST_CASE("a missing file is unreadable") {
  ScratchDir dir;
  TraceReader reader(dir.File("absent.vtrace"));
  vprof::trace::TracePacket packet;
  CHECK_FALSE(reader.Next(&packet));
  CHECK(reader.problem() == ReadProblem::kUnreadable);
  CHECK(reader.problem_detail().find("No such file") != std::string::npos);
}

TEST_CASE("packets larger than the read buffer, and ones that straddle it, read whole") {
  // Names of 5, 20 and 70 KiB: the reader's 16 KiB buffer holds none of the
  // last two whole, and the packets after them start at odd offsets.
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  std::vector<std::string> names;
  for (const size_t bytes : {5u << 10, 20u << 10, 70u << 10, 3u << 10, 9u << 10}) {
    names.push_back(std::string(bytes, static_cast<char>('a' + names.size())));
    trace.Intern(names.back());
  }
  // A packet that ends early, among them: skipped when copied out too.
  trace.AddRawBytes(FramePacket(std::string(30u << 10, '\0')));
  trace.AddFooter();
  trace.WriteTo(dir.File("big.vtrace"));
  TraceReader reader(dir.File("big.vtrace"));
  vprof::trace::TracePacket packet;
  std::vector<std::string> read;
  std::vector<uint64_t> offsets;
  while (reader.Next(&packet)) {
    offsets.push_back(reader.offset());
    if (packet.has_interned_string()) read.push_back(packet.interned_string().str());
  }
  CHECK(read == names);
  std::vector<uint64_t> whole = trace.packet_offsets();
  const uint64_t skipped_at = whole[whole.size() - 2];
  whole.erase(whole.end() - 2);
  CHECK(offsets == whole);
  CHECK(reader.problem() == ReadProblem::kNone);
  CHECK(reader.unreadable_packets() == 1);
  CHECK(reader.first_unreadable_offset() == skipped_at);
  CHECK(reader.offset() == trace.bytes().size());
}

TEST_CASE("packets missing from the sequence are counted, and where the first gap is") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  for (int batch = 0; batch < 6; ++batch) {
    trace.AddBatch({trace.Event("ncclAllReduce", 7, 1, 0, 1, 4096, 100, 200)});
  }
  // Sequences 1 (header), 2 (name), 3-8 (batches); 4 goes, then 6 and 7.
  const std::vector<uint64_t>& at = trace.packet_offsets();
  const std::string& all = trace.bytes();
  const std::string kept =
      all.substr(0, at[3]) + all.substr(at[4], at[5] - at[4]) + all.substr(at[7]);
  {
    std::ofstream file(dir.File("t.vtrace"), std::ios::binary);
    file << kept;
  }
  TraceReader reader(dir.File("t.vtrace"));
  vprof::trace::TracePacket packet;
  int read = 0;
  while (reader.Next(&packet)) ++read;
  CHECK(read == 5);
  CHECK(reader.problem() == ReadProblem::kNone);
  const SequenceGaps& gaps = reader.sequence_gaps();
  CHECK(gaps.missing_packets == 3);
  CHECK(gaps.gaps == 2);
  CHECK(gaps.first_before == 3);
  CHECK(gaps.first_after == 5);
  CHECK(gaps.first_offset == at[3]);
}

TEST_CASE("a packet that declares more than the limit is refused before it is read") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  const uint64_t hostile_at = trace.bytes().size();
  // Tag, then 1.9e9 as a varint: the file is made that long (sparse), so the
  // frame does not run past its end.
  constexpr uint64_t kDeclared = 1'900'000'000;
  std::string frame = "\x0a";
  for (uint64_t v = kDeclared; v != 0; v >>= 7) {
    frame += static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
  }
  trace.AddRawBytes(frame);
  trace.WriteTo(dir.File("t.vtrace"));
  std::filesystem::resize_file(dir.File("t.vtrace"), hostile_at + frame.size() + kDeclared);
  TraceReader reader(dir.File("t.vtrace"));
  vprof::trace::TracePacket packet;
  CHECK(reader.Next(&packet));
  CHECK(packet.has_run_header());
  CHECK_FALSE(reader.Next(&packet));
  CHECK(reader.problem() == ReadProblem::kCorrupt);
  CHECK(reader.offset() == hostile_at);
  CHECK(reader.problem_detail() ==
        "it declares 1900000000 bytes (1.77 GiB; limit 64.0 MiB a packet)");
}

TEST_CASE("a packet of exactly the limit is read (here it does not parse, and is skipped)") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  const uint64_t at_limit = trace.bytes().size();
  // Tag, then 64 MiB as a varint; the file is made that long (sparse): zeros, no packet.
  std::string frame = "\x0a";
  for (uint64_t v = kMaxPacketBytes; v != 0; v >>= 7) {
    frame += static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
  }
  trace.AddRawBytes(frame);
  trace.WriteTo(dir.File("t.vtrace"));
  std::filesystem::resize_file(dir.File("t.vtrace"), at_limit + frame.size() + kMaxPacketBytes);
  TraceReader reader(dir.File("t.vtrace"));
  vprof::trace::TracePacket packet;
  CHECK(reader.Next(&packet));
  CHECK_FALSE(reader.Next(&packet));
  CHECK(reader.problem() == ReadProblem::kNone);
  CHECK(reader.unreadable_packets() == 1);
  CHECK(reader.first_unreadable_offset() == at_limit);
}
