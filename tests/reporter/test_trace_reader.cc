// Reading trace files packet by packet, and stopping at the right byte when
// a file is cut or corrupt.
#include <catch2/catch.hpp>

#include "reporter/trace_reader.h"
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

TEST_CASE("a packet that does not parse is corrupt") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  // Length 3, then a tag with wire type 7, which does not exist.
  trace.AddRawBytes(std::string("\x0a\x03\x0f\x01\x02", 5));
  trace.AddFooter();
  trace.WriteTo(dir.File("bad.vtrace"));
  TraceReader reader(dir.File("bad.vtrace"));
  vprof::trace::TracePacket packet;
  CHECK(reader.Next(&packet));
  CHECK_FALSE(reader.Next(&packet));
  CHECK(reader.problem() == ReadProblem::kCorrupt);
  CHECK(reader.offset() == trace.packet_offsets()[1]);
}

TEST_CASE("a packet that ends early (a zero tag inside it) is corrupt") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  trace.AddRawBytes(FramePacket(std::string("\x08\x05\x00\x00", 4)));
  trace.WriteTo(dir.File("zero.vtrace"));
  TraceReader reader(dir.File("zero.vtrace"));
  vprof::trace::TracePacket packet;
  CHECK(reader.Next(&packet));
  CHECK_FALSE(reader.Next(&packet));
  CHECK(reader.problem() == ReadProblem::kCorrupt);
}

TEST_CASE("bytes that are not a packet tag are corrupt") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 42, 0);
  trace.AddRawBytes("garbage that is long enough");
  trace.WriteTo(dir.File("junk.vtrace"));
  TraceReader reader(dir.File("junk.vtrace"));
  vprof::trace::TracePacket packet;
  CHECK(reader.Next(&packet));
  CHECK_FALSE(reader.Next(&packet));
  CHECK(reader.problem() == ReadProblem::kCorrupt);
  CHECK(reader.problem_detail().find("tag") != std::string::npos);
  CHECK(reader.offset() == trace.packet_offsets()[1]);
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
  trace.AddFooter();
  // A packet that ends early, after them: still corrupt when copied out.
  trace.AddRawBytes(FramePacket(std::string(30u << 10, '\0')));
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
  const uint64_t corrupt_at = whole.back();
  whole.pop_back();
  CHECK(offsets == whole);
  CHECK(reader.problem() == ReadProblem::kCorrupt);
  CHECK(reader.offset() == corrupt_at);
}
