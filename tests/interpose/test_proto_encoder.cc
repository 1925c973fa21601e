// The hand encoder's bytes, decoded by libprotobuf's generated classes.
#include <google/protobuf/stubs/common.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "interpose/core/proto_encoder.h"
#include "vprof_trace.pb.h"
#include "vprof_trace_fields.h"

namespace sf = vprof::schema;
using vprof::ProtoEncoder;

TEST_CASE("varints, signed and unsigned, survive the round trip") {
  std::vector<uint8_t> buf(256);
  ProtoEncoder enc(buf.data(), buf.size());
  enc.AddVarint(sf::NcclEvent::kEnterNs, std::numeric_limits<uint64_t>::max());
  enc.AddVarint(sf::NcclEvent::kCount, 300);  // two varint bytes
  enc.AddInt32(sf::NcclEvent::kRoot, -1);     // sign-extended: ten bytes
  enc.AddInt32(sf::NcclEvent::kDatatype, 7);
  enc.AddVarint(sf::NcclEvent::kCommSize, 0);
  REQUIRE_FALSE(enc.Overflow());

  vprof::trace::NcclEvent ev;
  REQUIRE(ev.ParseFromArray(enc.data(), static_cast<int>(enc.size())));
  CHECK(ev.enter_ns() == std::numeric_limits<uint64_t>::max());
  CHECK(ev.count() == 300);
  CHECK(ev.has_root());
  CHECK(ev.root() == -1);
  CHECK(ev.datatype() == 7);
  // 0 written explicitly still reads as 0 (proto3 default).
  CHECK(ev.comm_size() == 0);
}

TEST_CASE("sint32, double, bool and strings use the wire types protobuf expects") {
  std::vector<uint8_t> buf(512);
  ProtoEncoder enc(buf.data(), buf.size());
  size_t comm = enc.BeginNested(sf::TracePacket::kCommunicator);
  enc.AddSint32(sf::Communicator::kSplitColor, -123456);
  enc.AddInt32(sf::Communicator::kCudaDevice, -1);
  enc.EndNested(comm);
  size_t header = enc.BeginNested(sf::TracePacket::kRunHeader);
  enc.AddString(sf::RunHeader::kHost, std::string(200, 'h'));  // length needs 2 bytes
  enc.AddBool(sf::RunHeader::kForkedChild, true);
  size_t inner = enc.BeginNested(sf::RunHeader::kSettings);
  enc.AddDouble(sf::Settings::kStartAfterS, 2.5);
  enc.AddDouble(sf::Settings::kStopAfterS, -0.125);
  enc.EndNested(inner);
  enc.EndNested(header);
  REQUIRE_FALSE(enc.Overflow());

  vprof::trace::TracePacket p;
  REQUIRE(p.ParseFromArray(enc.data(), static_cast<int>(enc.size())));
  // Two oneof members in one buffer: protobuf keeps the last.
  REQUIRE(p.has_run_header());
  CHECK(p.run_header().host() == std::string(200, 'h'));
  CHECK(p.run_header().forked_child());
  CHECK(p.run_header().settings().start_after_s() == 2.5);
  CHECK(p.run_header().settings().stop_after_s() == -0.125);
}

TEST_CASE("nested lengths are back-filled, including lengths above 127") {
  std::vector<uint8_t> buf(1 << 16);
  ProtoEncoder enc(buf.data(), buf.size());
  size_t batch = enc.BeginNested(sf::TracePacket::kEventBatch);
  enc.AddVarint(sf::EventBatch::kTid, 42);
  for (uint64_t i = 1; i <= 1000; ++i) {
    size_t ev = enc.BeginNested(sf::EventBatch::kNccl);
    enc.AddVarint(sf::NcclEvent::kSeq, i);
    enc.AddVarint(sf::NcclEvent::kBytes, i * 4096);
    enc.EndNested(ev);
  }
  enc.EndNested(batch);
  REQUIRE_FALSE(enc.Overflow());

  vprof::trace::TracePacket p;
  REQUIRE(p.ParseFromArray(enc.data(), static_cast<int>(enc.size())));
  REQUIRE(p.event_batch().nccl_size() == 1000);
  CHECK(p.event_batch().tid() == 42);
  CHECK(p.event_batch().nccl(999).seq() == 1000);
  CHECK(p.event_batch().nccl(999).bytes() == 1000 * 4096);
}

TEST_CASE("running out of room sets overflow, writes nothing past the end, and rolls back") {
  std::vector<uint8_t> buf(16, 0xEE);
  ProtoEncoder enc(buf.data(), 12);
  size_t mark = enc.Mark();
  enc.AddString(sf::InternedString::kStr, "this string is longer than twelve bytes");
  CHECK(enc.Overflow());
  CHECK(enc.size() <= 12);
  for (size_t i = 12; i < 16; ++i) CHECK(buf[i] == 0xEE);
  enc.Rollback(mark);
  CHECK_FALSE(enc.Overflow());
  enc.AddVarint(sf::InternedString::kIid, 5);
  vprof::trace::InternedString s;
  REQUIRE(s.ParseFromArray(enc.data(), static_cast<int>(enc.size())));
  CHECK(s.iid() == 5);
}

TEST_CASE("text is written as valid UTF-8; bytes go out unchanged") {
  std::vector<uint8_t> buf(512);
  ProtoEncoder enc(buf.data(), buf.size());
  size_t header = enc.BeginNested(sf::TracePacket::kRunHeader);
  // A byte of 0xff in an argument, and a name cut inside "é" (C3 A9).
  enc.AddString(sf::RunHeader::kArgv, "--tag=\xff");
  enc.AddString(sf::RunHeader::kHost, "caf\xc3");
  enc.EndNested(header);
  size_t batch = enc.BeginNested(sf::TracePacket::kGpuBatch);
  size_t device = enc.BeginNested(sf::GpuBatch::kDevice);
  const std::string uuid("\xff\x00\xc3\x80\xed\xa0\x80\x01\x02\x03\x04\x05\x06\x07\x08\x09", 16);
  enc.AddBytes(sf::GpuDevice::kUuid, uuid);
  // Capped on what is written: "ü" (2 bytes) would pass the cap of 5.
  enc.AddString(sf::GpuDevice::kName, "GPU\xc3\xbc\xc3\xbc", 5);
  enc.EndNested(device);
  enc.EndNested(batch);
  REQUIRE_FALSE(enc.Overflow());

  // Two oneof members in one buffer: the whole parses as the last, the first
  // alone as the header.
  vprof::trace::TracePacket p;
  REQUIRE(p.ParseFromArray(enc.data(), static_cast<int>(enc.size())));
  REQUIRE(p.has_gpu_batch());
  CHECK(p.gpu_batch().device(0).uuid() == uuid);
  CHECK(p.gpu_batch().device(0).name() == "GPU\xc3\xbc");
  const size_t header_bytes = 1 + 4 + 1 + 1 + 9 + 1 + 1 + 6;  // tags, lengths, text
  REQUIRE(p.ParseFromArray(enc.data(), static_cast<int>(header_bytes)));
  REQUIRE(p.has_run_header());
  CHECK(p.run_header().argv(0) == "--tag=\xef\xbf\xbd");
  CHECK(p.run_header().host() == "caf\xef\xbf\xbd");
  for (const std::string& s : {p.run_header().argv(0), p.run_header().host()}) {
    CHECK(
        google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size())));
  }
}
