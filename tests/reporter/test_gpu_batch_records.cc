// DecodeGpuBatch against protobuf's own parser: GpuBatch messages with every
// field set to random values (a fixed seed) are serialized, decoded by hand
// and compared field by field with the message they came from; bytes that
// protobuf refuses are refused too.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "reporter/trace/gpu_batch_records.h"
#include "vprof_trace.pb.h"

using namespace vprof::reporter;
namespace pb = vprof::trace;

namespace {

// Values of every width: small ones (one varint byte), full 32- and 64-bit
// ones (five and ten bytes).
class Values {
 public:
  uint64_t U64() {
    switch (random_() % 3) {
      case 0:
        return random_() % 100;
      case 1:
        return random_() & 0xffff'ffff;
      default:
        return random_();
    }
  }
  uint32_t U32() { return static_cast<uint32_t>(U64()); }
  bool Coin() { return random_() % 2 == 0; }

 private:
  std::mt19937_64 random_{20261201};
};

pb::GpuBatch RandomBatch(Values& values) {
  pb::GpuBatch batch;
  for (int i = 0; i < 7; ++i) {
    pb::GpuKernel& k = *batch.add_kernel();
    k.set_name_iid(values.U64());
    k.set_start_ns(values.U64());
    k.set_duration_ns(values.U64());
    k.set_device(values.U32());
    k.set_context(values.U32());
    k.set_stream(values.U32());
    k.set_correlation_id(values.U32());
    k.set_grid_x(values.U32());
    k.set_block_z(values.U32());
    k.set_graph_id(values.U32());
    k.set_graph_node_id(values.U64());
  }
  for (int i = 0; i < 5; ++i) {
    pb::ApiCall& a = *batch.add_api();
    a.set_driver(values.Coin());
    a.set_name_iid(values.U64());
    a.set_start_ns(values.U64());
    a.set_duration_ns(values.U64());
    a.set_tid(values.U32());
    a.set_correlation_id(values.U32());
    a.set_return_value(values.U32());
  }
  for (int i = 0; i < 4; ++i) {
    pb::GpuMemcpy& c = *batch.add_memcpy();
    c.set_copy_kind(values.U32());
    c.set_src_kind(values.U32());
    c.set_bytes(values.U64());
    c.set_start_ns(values.U64());
    c.set_duration_ns(values.U64());
    c.set_stream(values.U32());
    c.set_correlation_id(values.U32());
    c.set_graph_id(values.U32());
    // Copy i has src_device when bit 0 of i is set, dst_device for bit 1.
    if (i & 1) c.set_src_device(values.U32());
    if (i & 2) c.set_dst_device(values.U32());
  }
  for (int i = 0; i < 3; ++i) {
    pb::GpuMemset& m = *batch.add_memset();
    m.set_bytes(values.U64());
    m.set_start_ns(values.U64());
    m.set_duration_ns(values.U64());
    m.set_stream(values.U32());
    m.set_correlation_id(values.U32());
    m.set_graph_id(values.U32());
    m.set_value(values.U32());
  }
  for (int i = 0; i < 3; ++i) {
    pb::ExternalCorrelation& e = *batch.add_external();
    e.set_kind(values.U32());
    e.set_external_id(values.U64());
    e.set_correlation_id(values.U32());
  }
  pb::GpuSync& sync = *batch.add_sync();
  sync.set_type(2);
  sync.set_duration_ns(values.U64());
  sync.set_event_sync_id(values.U64());
  pb::CudaEventRecord& record = *batch.add_event_record();
  record.set_stream(values.U32());
  record.set_event_sync_id(values.U64());
  batch.add_overhead()->set_duration_ns(values.U64());
  pb::GpuDevice& device = *batch.add_device();
  device.set_id(values.U32());
  device.set_uuid(std::string(16, '\x7f'));
  device.set_name("NVIDIA H200");
  for (int i = 0; i < 2; ++i) {
    pb::GpuGraphReplay& r = *batch.add_graph_replay();
    r.set_start_ns(values.U64());
    r.set_duration_ns(values.U64());
    r.set_device(values.U32());
    r.set_context(values.U32());
    r.set_stream(values.U32());
    r.set_correlation_id(values.U32());
    r.set_graph_id(values.U32());
  }
  batch.set_dropped(values.U64());
  return batch;
}

// The fields a GpuMemcpy and a GpuMemset share.
template <typename Copy>
void CheckCopy(const Copy& want, const CopyRow& got) {
  CHECK(got.bytes == want.bytes());
  CHECK(got.start_ns == want.start_ns());
  CHECK(got.duration_ns == want.duration_ns());
  CHECK(got.stream == want.stream());
  CHECK(got.correlation_id == want.correlation_id());
  CHECK(got.graph_id == want.graph_id());
}

void CheckSame(const pb::GpuBatch& batch, const GpuBatchRecords& records) {
  REQUIRE(records.kernels.size() == static_cast<size_t>(batch.kernel_size()));
  for (size_t i = 0; i < records.kernels.size(); ++i) {
    const pb::GpuKernel& want = batch.kernel(static_cast<int>(i));
    const KernelRow& got = records.kernels[i];
    CHECK(got.name_iid == want.name_iid());
    CHECK(got.start_ns == want.start_ns());
    CHECK(got.duration_ns == want.duration_ns());
    CHECK(got.stream == want.stream());
    CHECK(got.correlation_id == want.correlation_id());
    CHECK(got.graph_id == want.graph_id());
  }
  REQUIRE(records.apis.size() == static_cast<size_t>(batch.api_size()));
  for (size_t i = 0; i < records.apis.size(); ++i) {
    const pb::ApiCall& want = batch.api(static_cast<int>(i));
    const ApiRow& got = records.apis[i];
    CHECK(got.name_iid == want.name_iid());
    CHECK(got.start_ns == want.start_ns());
    CHECK(got.duration_ns == want.duration_ns());
    CHECK(got.tid == want.tid());
    CHECK(got.correlation_id == want.correlation_id());
  }
  REQUIRE(records.memcpys.size() == static_cast<size_t>(batch.memcpy_size()));
  for (size_t i = 0; i < records.memcpys.size(); ++i) {
    const pb::GpuMemcpy& want = batch.memcpy(static_cast<int>(i));
    const CopyRow& got = records.memcpys[i];
    CheckCopy(want, got);
    CHECK(got.copy_kind == want.copy_kind());
    CHECK(got.has_src_device == want.has_src_device());
    CHECK(got.has_dst_device == want.has_dst_device());
    CHECK(got.src_device == want.src_device());
    CHECK(got.dst_device == want.dst_device());
  }
  REQUIRE(records.memsets.size() == static_cast<size_t>(batch.memset_size()));
  for (size_t i = 0; i < records.memsets.size(); ++i) {
    CheckCopy(batch.memset(static_cast<int>(i)), records.memsets[i]);
  }
  REQUIRE(records.externals.size() == static_cast<size_t>(batch.external_size()));
  for (size_t i = 0; i < records.externals.size(); ++i) {
    CHECK(records.externals[i].external_id == batch.external(static_cast<int>(i)).external_id());
    CHECK(records.externals[i].correlation_id ==
          batch.external(static_cast<int>(i)).correlation_id());
  }
  REQUIRE(records.graph_replays.size() == static_cast<size_t>(batch.graph_replay_size()));
  for (size_t i = 0; i < records.graph_replays.size(); ++i) {
    const pb::GpuGraphReplay& want = batch.graph_replay(static_cast<int>(i));
    const GraphReplayRow& got = records.graph_replays[i];
    CHECK(got.start_ns == want.start_ns());
    CHECK(got.duration_ns == want.duration_ns());
    CHECK(got.stream == want.stream());
    CHECK(got.correlation_id == want.correlation_id());
    CHECK(got.graph_id == want.graph_id());
  }
  CHECK(records.dropped == batch.dropped());
  // The kinds left to protobuf, whole.
  pb::GpuBatch others;
  others.mutable_sync()->CopyFrom(batch.sync());
  others.mutable_event_record()->CopyFrom(batch.event_record());
  others.mutable_overhead()->CopyFrom(batch.overhead());
  others.mutable_device()->CopyFrom(batch.device());
  CHECK(records.others.SerializeAsString() == others.SerializeAsString());
}

std::string PacketOf(const pb::GpuBatch& batch) {
  pb::TracePacket packet;
  packet.set_sequence(41);
  *packet.mutable_gpu_batch() = batch;
  return packet.SerializeAsString();
}

}  // namespace

TEST_CASE("DecodeGpuBatch reads every field the readers use, as protobuf does") {
  Values values;
  GpuBatchRecords records;
  for (int round = 0; round < 20; ++round) {
    const pb::GpuBatch batch = RandomBatch(values);
    const std::string bytes = batch.SerializeAsString();
    // The same records reused: nothing of the round before may remain.
    REQUIRE(DecodeGpuBatch(bytes.data(), bytes.size(), &records));
    CheckSame(batch, records);
  }
}

TEST_CASE("DecodeGpuBatch: a repeated scalar's last value wins and unknown fields are skipped") {
  pb::GpuKernel first;
  first.set_start_ns(5);
  first.set_stream(3);
  pb::GpuKernel second;
  second.set_start_ns(1'000'000'000'123);
  // A kernel message given as two concatenated halves: protobuf merges them.
  std::string kernel = first.SerializeAsString() + second.SerializeAsString();
  // Field 99 as a varint, a fixed64, a fixed32 and a length-delimited field;
  // field 6 (stream) as a fixed32, which protobuf treats as unknown.
  kernel += std::string("\x98\x06\x07", 3) + std::string("\x99\x06", 2) + std::string(8, '\1') +
            std::string("\x9d\x06", 2) + std::string(4, '\2') + std::string("\x9a\x06\x02zz", 5) +
            std::string("\x35", 1) + std::string(4, '\3');
  std::string batch_bytes = "\x0a";  // GpuBatch.kernel
  batch_bytes += static_cast<char>(kernel.size());
  batch_bytes += kernel;

  pb::GpuBatch parsed;
  REQUIRE(parsed.ParseFromString(batch_bytes));
  GpuBatchRecords records;
  REQUIRE(DecodeGpuBatch(batch_bytes.data(), batch_bytes.size(), &records));
  CheckSame(parsed, records);
  CHECK(records.kernels[0].start_ns == 1'000'000'000'123);
  CHECK(records.kernels[0].stream == 3);
}

TEST_CASE("DecodeGpuBatch refuses the bytes protobuf refuses") {
  Values values;
  const std::string bytes = RandomBatch(values).SerializeAsString();
  GpuBatchRecords records;
  pb::GpuBatch parsed;
  // Every cut that ends inside a field. protobuf accepts a cut at a field's
  // end, and so must the decoder.
  int refused = 0;
  for (size_t size = 1; size < bytes.size(); ++size) {
    const bool by_protobuf = parsed.ParseFromArray(bytes.data(), static_cast<int>(size));
    CHECK(DecodeGpuBatch(bytes.data(), size, &records) == by_protobuf);
    refused += by_protobuf ? 0 : 1;
  }
  CHECK(refused > 0);
  // A zero tag, an 11-byte varint, a group never closed. (protobuf reads a
  // closed group as an unknown field; the decoder refuses every group, which
  // no vprof writes.)
  const std::string bads[] = {std::string("\x00\x01", 2), "\x48" + std::string(10, '\xff') + "\x01",
                              "\x0b"};
  for (const std::string& bad : bads) {
    CHECK_FALSE(parsed.ParseFromString(bad));
    CHECK_FALSE(DecodeGpuBatch(bad.data(), bad.size(), &records));
  }
}

TEST_CASE("DecodeGpuBatchPacket: only a packet whose oneof holds a GpuBatch is decoded") {
  Values values;
  const pb::GpuBatch batch = RandomBatch(values);
  GpuBatchRecords records;

  const std::string gpu = PacketOf(batch);
  REQUIRE(DecodeGpuBatchPacket(gpu.data(), gpu.size(), &records) == PacketDecode::kGpuBatch);
  CheckSame(batch, records);

  pb::TracePacket header;
  header.set_sequence(1);
  header.mutable_run_header()->set_host("node1");
  const std::string other = header.SerializeAsString();
  CHECK(DecodeGpuBatchPacket(other.data(), other.size(), &records) == PacketDecode::kOther);

  // A GpuBatch followed by another member of the oneof: that one is set.
  const std::string replaced = gpu + other;
  pb::TracePacket parsed;
  REQUIRE(parsed.ParseFromString(replaced));
  REQUIRE(parsed.has_run_header());
  CHECK(DecodeGpuBatchPacket(replaced.data(), replaced.size(), &records) == PacketDecode::kOther);

  // Two GpuBatch fields in one packet merge.
  const pb::GpuBatch second = RandomBatch(values);
  const std::string merged = gpu + PacketOf(second);
  REQUIRE(parsed.ParseFromString(merged));
  REQUIRE(DecodeGpuBatchPacket(merged.data(), merged.size(), &records) == PacketDecode::kGpuBatch);
  CheckSame(parsed.gpu_batch(), records);

  // A packet cut inside its GpuBatch.
  CHECK(DecodeGpuBatchPacket(gpu.data(), gpu.size() - 3, &records) == PacketDecode::kCorrupt);
}
