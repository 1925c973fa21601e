// Real CUPTI activity records, built in memory, encoded into a GpuBatch and
// read back with libprotobuf field by field.
#include <google/protobuf/stubs/common.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "cupti/activity_encoder.h"
#include "vprof_trace.pb.h"
#include "vprof_trace_fields.h"

namespace sf = vprof::schema;

namespace {

// Encodes records as the members of one GpuBatch and decodes it.
vprof::trace::GpuBatch encode(const std::vector<const CUpti_Activity*>& records,
                              uint64_t name_iid = 77) {
  std::vector<uint8_t> buf(8192);
  vprof::ProtoEncoder enc(buf.data(), buf.size());
  for (const CUpti_Activity* r : records) vprof::EncodeActivity(enc, r, name_iid);
  REQUIRE_FALSE(enc.Overflow());
  vprof::trace::GpuBatch batch;
  REQUIRE(batch.ParseFromArray(enc.data(), static_cast<int>(enc.size())));
  return batch;
}

template <typename T>
T zeroed() {
  T t;
  std::memset(&t, 0, sizeof t);
  return t;
}

CUptiResult CUPTIAPI fake_callback_name(CUpti_CallbackDomain domain, uint32_t cbid,
                                        const char** name) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 211) {
    *name = "cudaLaunchKernel";
    return CUPTI_SUCCESS;
  }
  return CUPTI_ERROR_INVALID_PARAMETER;
}

}  // namespace

TEST_CASE("a kernel record keeps its times, ids, geometry and graph") {
  auto k = zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  k.start = 5000000000ull;
  k.end = 5000012345ull;
  k.deviceId = 1;
  k.contextId = 3;
  k.streamId = 13;
  k.correlationId = 4242;
  k.gridX = 24;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 640;
  k.blockY = 1;
  k.blockZ = 2;
  k.graphId = 9;
  k.graphNodeId = 123456789;
  CHECK(vprof::ActivityName(reinterpret_cast<CUpti_Activity*>(&k), nullptr) ==
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  auto batch = encode({reinterpret_cast<CUpti_Activity*>(&k)});
  REQUIRE(batch.kernel_size() == 1);
  const auto& e = batch.kernel(0);
  CHECK(e.name_iid() == 77);
  CHECK(e.start_ns() == 5000000000ull);
  CHECK(e.duration_ns() == 12345);
  CHECK(e.device() == 1);
  CHECK(e.context() == 3);
  CHECK(e.stream() == 13);
  CHECK(e.correlation_id() == 4242);
  CHECK(e.grid_x() == 24);
  CHECK(e.grid_y() == 0);  // 1 is left out, read as 0 = 1
  CHECK(e.block_x() == 640);
  CHECK(e.block_z() == 2);
  CHECK(e.graph_id() == 9);
  CHECK(e.graph_node_id() == 123456789);
}

TEST_CASE("a graph replay recorded whole keeps its span, stream, launch and graph") {
  auto g = zeroed<CUpti_ActivityGraphTrace2>();
  g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g.correlationId = 5150;
  g.start = 7000000000ull;
  g.end = 7000533000ull;
  g.deviceId = 2;
  g.graphId = 41;
  g.contextId = 1;
  g.streamId = 22;
  g.endDeviceId = 2;
  CHECK(vprof::ActivityName(reinterpret_cast<CUpti_Activity*>(&g), nullptr).empty());
  auto batch = encode({reinterpret_cast<CUpti_Activity*>(&g)});
  REQUIRE(batch.graph_replay_size() == 1);
  CHECK(batch.kernel_size() == 0);
  const auto& e = batch.graph_replay(0);
  CHECK(e.start_ns() == 7000000000ull);
  CHECK(e.duration_ns() == 533000);
  CHECK(e.device() == 2);
  CHECK(e.context() == 1);
  CHECK(e.stream() == 22);
  CHECK(e.correlation_id() == 5150);
  CHECK(e.graph_id() == 41);

  // Its first node ran on the host (device and context INT_MAX): the GPU it ended on.
  g.deviceId = INT_MAX;
  g.contextId = INT_MAX;
  g.endDeviceId = 3;
  g.endContextId = 4;
  auto host_start = encode({reinterpret_cast<CUpti_Activity*>(&g)});
  REQUIRE(host_start.graph_replay_size() == 1);
  CHECK(host_start.graph_replay(0).device() == 3);
  CHECK(host_start.graph_replay(0).context() == 4);

  // CUPTI could not time it: both times 0, written as neither.
  g.start = g.end = 0;
  auto untimed = encode({reinterpret_cast<CUpti_Activity*>(&g)});
  REQUIRE(untimed.graph_replay_size() == 1);
  CHECK(untimed.graph_replay(0).start_ns() == 0);
  CHECK(untimed.graph_replay(0).duration_ns() == 0);
}

TEST_CASE("a typical kernel record takes at most 32 bytes") {
  auto k = zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 3 * 86400ull * 1000000000ull;  // CLOCK_MONOTONIC three days after boot
  k.end = k.start + 8000;
  k.streamId = 7;
  k.correlationId = 120000;
  k.gridX = 108;
  k.gridY = k.gridZ = 1;
  k.blockX = 256;
  k.blockY = k.blockZ = 1;
  std::vector<uint8_t> buf(256);
  vprof::ProtoEncoder enc(buf.data(), buf.size());
  vprof::EncodeActivity(enc, reinterpret_cast<CUpti_Activity*>(&k), 70000);
  CHECK(enc.size() <= 32);
}

TEST_CASE("a copy between two GPUs keeps both devices; a plain copy has neither") {
  auto p = zeroed<CUpti_ActivityMemcpyPtoP4>();
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = 64 << 20;
  p.start = 1000;
  p.end = 3500;
  p.deviceId = 1;
  p.srcDeviceId = 0;  // device 0 written on purpose: present although zero
  p.dstDeviceId = 1;
  p.streamId = 13;
  p.correlationId = 21;
  auto c = zeroed<CUpti_ActivityMemcpy6>();
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  c.bytes = 512;
  auto batch =
      encode({reinterpret_cast<CUpti_Activity*>(&p), reinterpret_cast<CUpti_Activity*>(&c)});
  REQUIRE(batch.memcpy_size() == 2);
  const auto& peer = batch.memcpy(0);
  CHECK(peer.copy_kind() == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
  CHECK(peer.bytes() == (64u << 20));
  CHECK(peer.duration_ns() == 2500);
  CHECK(peer.device() == 1);
  CHECK(peer.stream() == 13);
  CHECK(peer.correlation_id() == 21);
  REQUIRE(peer.has_src_device());
  REQUIRE(peer.has_dst_device());
  CHECK(peer.src_device() == 0);
  CHECK(peer.dst_device() == 1);
  CHECK_FALSE(batch.memcpy(1).has_src_device());
  CHECK_FALSE(batch.memcpy(1).has_dst_device());
}

TEST_CASE("copies, memsets, syncs and event records") {
  auto c = zeroed<CUpti_ActivityMemcpy6>();
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  c.bytes = 1 << 20;
  c.start = 100;
  c.end = 600;
  c.streamId = 7;
  c.correlationId = 11;
  auto s = zeroed<CUpti_ActivityMemset4>();
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 4096;
  s.value = 255;
  s.start = 700;
  s.end = 710;
  s.streamId = 7;
  s.correlationId = 12;
  auto w = zeroed<CUpti_ActivitySynchronization2>();
  w.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  w.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  w.start = 800;
  w.end = 805;
  w.streamId = 9;
  w.cudaEventId = 4;
  w.correlationId = 13;
  w.cudaEventSyncId = 55;
  auto h = zeroed<CUpti_ActivitySynchronization2>();  // a host-side wait: no stream, no event
  h.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  h.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  h.streamId = UINT32_MAX;
  h.cudaEventId = UINT32_MAX;
  h.start = 900;
  h.end = 1900;
  auto ev = zeroed<CUpti_ActivityCudaEvent2>();
  ev.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  ev.correlationId = 14;
  ev.streamId = 7;
  ev.eventId = 4;
  ev.cudaEventSyncId = 55;
  auto batch = encode({reinterpret_cast<CUpti_Activity*>(&c), reinterpret_cast<CUpti_Activity*>(&s),
                       reinterpret_cast<CUpti_Activity*>(&w), reinterpret_cast<CUpti_Activity*>(&h),
                       reinterpret_cast<CUpti_Activity*>(&ev)});
  REQUIRE(batch.memcpy_size() == 1);
  CHECK(batch.memcpy(0).copy_kind() == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
  CHECK(batch.memcpy(0).dst_kind() == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
  CHECK(batch.memcpy(0).bytes() == (1u << 20));
  CHECK(batch.memcpy(0).duration_ns() == 500);
  REQUIRE(batch.memset_size() == 1);
  CHECK(batch.memset(0).value() == 255);
  CHECK(batch.memset(0).bytes() == 4096);
  REQUIRE(batch.sync_size() == 2);
  CHECK(batch.sync(0).type() == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT);
  CHECK(batch.sync(0).stream() == 9);
  CHECK(batch.sync(0).cuda_event() == 4);
  CHECK(batch.sync(0).event_sync_id() == 55);
  CHECK(batch.sync(1).stream() == 0);  // not applicable: not written
  CHECK(batch.sync(1).cuda_event() == 0);
  CHECK(batch.sync(1).duration_ns() == 1000);
  REQUIRE(batch.event_record_size() == 1);
  // The wait on stream 9 names the record on stream 7: the edge 7 -> 9.
  CHECK(batch.event_record(0).stream() == 7);
  CHECK(batch.event_record(0).event_sync_id() == batch.sync(0).event_sync_id());
}

TEST_CASE("API calls are named through CUPTI; external correlation ties NCCL calls to kernels") {
  auto a = zeroed<CUpti_ActivityAPI>();
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.start = 1000;
  a.end = 1900;
  a.threadId = 31337;
  a.correlationId = 4242;
  auto d = a;
  d.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  d.cbid = 1;
  d.returnValue = 3;
  CHECK(vprof::ActivityName(reinterpret_cast<CUpti_Activity*>(&a), fake_callback_name) ==
        "cudaLaunchKernel");
  CHECK(vprof::ActivityName(reinterpret_cast<CUpti_Activity*>(&d), fake_callback_name) ==
        "(unknown API)");
  auto x = zeroed<CUpti_ActivityExternalCorrelation>();
  x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  x.externalId = 17;
  x.correlationId = 4242;
  auto o = zeroed<CUpti_ActivityOverhead3>();
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.start = 10;
  o.end = 30;
  auto batch =
      encode({reinterpret_cast<CUpti_Activity*>(&a), reinterpret_cast<CUpti_Activity*>(&d),
              reinterpret_cast<CUpti_Activity*>(&x), reinterpret_cast<CUpti_Activity*>(&o)},
             5);
  REQUIRE(batch.api_size() == 2);
  CHECK_FALSE(batch.api(0).driver());
  CHECK(batch.api(0).name_iid() == 5);
  CHECK(batch.api(0).duration_ns() == 900);
  CHECK(batch.api(0).tid() == 31337);
  CHECK(batch.api(0).correlation_id() == 4242);
  CHECK(batch.api(1).driver());
  CHECK(batch.api(1).return_value() == 3);
  REQUIRE(batch.external_size() == 1);
  CHECK(batch.external(0).kind() == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
  CHECK(batch.external(0).external_id() == 17);
  CHECK(batch.external(0).correlation_id() == batch.api(0).correlation_id());
  REQUIRE(batch.overhead_size() == 1);
  CHECK(batch.overhead(0).duration_ns() == 20);
}

TEST_CASE("kinds vprof does not record write nothing") {
  auto m = zeroed<CUpti_ActivityMarker2>();
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  std::vector<uint8_t> buf(64);
  vprof::ProtoEncoder enc(buf.data(), buf.size());
  CHECK_FALSE(vprof::EncodeActivity(enc, reinterpret_cast<CUpti_Activity*>(&m), 0));
  CHECK(enc.size() == 0);
}

TEST_CASE("a device keeps its UUID bytes as they are and its name valid UTF-8, within the cap") {
  auto d = zeroed<CUpti_ActivityDevice5>();
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 3;
  d.isCudaVisible = 1;
  const char uuid[16] = {'\xff', '\x00', '\xc3', '\x80', '\xed', '\xa0', '\x80', '\x01',
                         '\x02', '\x03', '\x04', '\x05', '\x06', '\x07', '\x08', '\x09'};
  std::memcpy(d.uuid.bytes, uuid, sizeof uuid);
  // 47 two-byte characters and 60 bytes that are not UTF-8: repaired, that
  // would be 274 bytes, more than a record may take.
  std::string name;
  for (int i = 0; i < 47; ++i) name += "\xc3\xa9";
  name += std::string(60, '\xff');
  d.name = name.c_str();
  std::vector<uint8_t> buf(1024);
  vprof::ProtoEncoder enc(buf.data(), buf.size());
  REQUIRE(vprof::EncodeActivity(enc, reinterpret_cast<const CUpti_Activity*>(&d), 0));
  CHECK(enc.size() <= vprof::kMaxEncodedActivityBytes);
  vprof::trace::GpuBatch batch;
  REQUIRE(batch.ParseFromArray(enc.data(), static_cast<int>(enc.size())));
  REQUIRE(batch.device_size() == 1);
  CHECK(batch.device(0).uuid() == std::string(uuid, sizeof uuid));
  const std::string& written = batch.device(0).name();
  CHECK(written.size() <= 96);
  CHECK(written.substr(0, 94) == name.substr(0, 94));  // the 47 characters whole
  CHECK(google::protobuf::internal::IsStructurallyValidUTF8(written.data(),
                                                            static_cast<int>(written.size())));
}
