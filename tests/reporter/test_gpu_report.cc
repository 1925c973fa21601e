// The GPU parts of whole reports, from trace files with GPU packets whose
// every number is known: totals, kernel classes, NCCL linkage, stream waits
// and capture status, in the report data, the text and the JSON.
#include <catch2/catch.hpp>
#include <sstream>

#include "cli_runner.h"
#include "four_rank_run.h"
#include "gpu_batch_builder.h"
#include "mini_json.h"
#include "report_of.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/text_layout.h"
#include "reporter/ingest/gpu_activity_reader.h"
#include "reporter/render/json/json_page.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint64_t kComm = 0xabc;
constexpr const char* kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n";
constexpr const char* kElementwise =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)";
constexpr const char* kNcclAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

JsonValue JsonOf(const Report& report) {
  std::ostringstream out;
  WriteJsonReport(report, out);
  return JsonValue::Parse(out.str());
}

// `text` with every line break and the indent after it made one space, so
// that wrapped sentences can be found whole.
std::string Unwrapped(const std::string& text) {
  std::string result;
  for (size_t at = 0; at < text.size(); ++at) {
    if (text[at] != '\n') {
      result += text[at];
      continue;
    }
    result += ' ';
    while (at + 1 < text.size() && text[at + 1] == ' ') ++at;
  }
  return result;
}

// One process, no NCCL: 3 kernels in 2 classes (gemm 100 µs; elementwise
// 20 µs twice), 2 copies of 1 MiB (4 µs each), a memset of 64 B, a host sync
// of 2 µs, 3 API calls, 1.5 µs of CUPTI overhead, 3 + 4 dropped records, in
// two batches.
void WriteComputeProcess(const std::string& directory) {
  TraceFileBuilder trace("node1", 300, 0);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  GpuBatchBuilder(trace)
      .Kernel(kGemm, 100000)
      .Kernel(kElementwise, 20000)
      .Memcpy(1 << 20, 4000)
      .Memset(64, 1000)
      .Api("cudaLaunchKernel", 1)
      .Api("cudaLaunchKernel", 2)
      .Overhead(1500)
      .Dropped(3)
      .Write();
  GpuBatchBuilder(trace)
      .Kernel(kElementwise, 20000)
      .Memcpy(1 << 20, 4000)
      .Sync(3, 2000)
      .Api("cudaMemcpyAsync", 3)
      .Dropped(4)
      .Write();
  trace.AddFooter();
  trace.WriteTo(directory + "/node1.300.vtrace");
}

// Two ranks in communicator 0xabc all-reduce 1 MiB once. Rank 0 (call_id 7)
// launches its kernel under correlation 42 (30 µs) after a cudaEventRecord
// under 43, and also runs an NCCL kernel no intercepted call launched (5 µs,
// as through vLLM's PyNccl handle). Rank 1 (call_id 3) writes its GPU batch
// (50 µs under correlation 8) before the event of the call.
void WriteLinkedRun(const std::string& directory) {
  for (int32_t rank = 0; rank < 2; ++rank) {
    TraceFileBuilder trace("node1", 201 + rank, rank);
    AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
    trace.AddCommunicator(kComm, 2, rank, "ncclCommInitRank");
    vprof::trace::NcclEvent call =
        trace.Event("ncclAllReduce", kComm, 2, rank, 1, 1 << 20, 1000, 11000);
    if (rank == 0) {
      call.set_call_id(7);
      trace.AddBatch({call});
      GpuBatchBuilder(trace)
          .External(7, 42)
          .External(7, 43)
          .Api("cudaEventRecord", 43)
          .Api("cudaLaunchKernel", 42)
          .Kernel(kNcclAllReduce, 30000, 42)
          .Kernel("ncclDevKernel_AllGather_RING_LL", 5000, 99)
          .Write();
    } else {
      call.set_call_id(3);
      GpuBatchBuilder(trace).External(3, 8).Kernel(kNcclAllReduce, 50000, 8).Write();
      trace.AddBatch({call});
    }
    trace.AddFooter();
    trace.WriteTo(directory + "/node1." + std::to_string(201 + rank) + ".vtrace");
  }
}

const ProcessReport& ProcessNamed(const Report& report, const std::string& file) {
  for (const ProcessReport& process : report.processes) {
    if (process.file == file) return process;
  }
  FAIL("no process " << file);
  throw;
}

}  // namespace

TEST_CASE("GPU totals, kernel classes and top kernels of a process") {
  ScratchDir dir;
  WriteComputeProcess(dir.path());
  const Report report = ReportOf(dir.path());
  const GpuReport& gpu = report.processes.at(0).gpu;

  REQUIRE(gpu.capture);
  CHECK(gpu.capture->state == GpuCaptureState::kActive);
  CHECK(gpu.batches == 2);
  CHECK(gpu.kernels.count == 3);
  CHECK(gpu.kernels.total_ns == 140000);
  CHECK(gpu.memcpy.count == 2);
  CHECK(gpu.memcpy.bytes == 2 << 20);
  CHECK(gpu.memcpy.total_ns == 8000);
  CHECK(gpu.memset.count == 1);
  CHECK(gpu.memset.bytes == 64);
  CHECK(gpu.syncs.count == 1);
  CHECK(gpu.syncs.total_ns == 2000);
  CHECK(gpu.api_calls == 3);
  CHECK(gpu.dropped_records == 7);
  CHECK(gpu.cupti_overhead_ns == 1500);

  REQUIRE(gpu.kernel_classes.size() == 2);
  const KernelClassReport& gemm = gpu.kernel_classes[0];  // most time first
  CHECK(gemm.kernel_class == "gemm");
  CHECK(gemm.count == 1);
  CHECK(gemm.total_ns == 100000);
  CHECK(gemm.share == Approx(100.0 / 140.0));
  const KernelClassReport& elementwise = gpu.kernel_classes[1];
  CHECK(elementwise.kernel_class == "elementwise");
  CHECK(elementwise.count == 2);
  CHECK(elementwise.total_ns == 40000);
  CHECK(elementwise.mean_ns == 20000);
  CHECK(elementwise.share == Approx(40.0 / 140.0));

  REQUIRE(gpu.top_kernels.size() == 2);
  CHECK(gpu.top_kernels[0].name == kGemm);
  CHECK(gpu.top_kernels[1].name == kElementwise);  // full name
  CHECK(gpu.top_kernels[1].kernel_class == "elementwise");
  CHECK(gpu.top_kernels[1].count == 2);
}

TEST_CASE("text GPU section: totals, classes with shares, short kernel names") {
  ScratchDir dir;
  WriteComputeProcess(dir.path());
  const std::string text = TextOf(ReportOf(dir.path()));
  INFO(text);
  CHECK(Contains(Unwrapped(text),
                 " rank 0, node1.300.vtrace: capture active; timestamps: "
                 "cupti_timestamp_callback kernels 3, 140 µs; memcpy 2, 2.00 "
                 "MiB, 8.00 µs; memset 1, 64 B; syncs 1, 2.00 µs; API calls 3; "
                 "CUPTI dropped records 7, overhead 1.50 µs "));
  CHECK(Contains(text, "    gemm             1   100 µs   100 µs  71.4%\n"));
  CHECK(Contains(text, "    elementwise      2  40.0 µs  20.0 µs  28.6%\n"));
  // The name shortened, then elided to fit the table.
  CHECK(Contains(text,
                 "\n    at::native::vectorized_element…at::native::CUDAFunctor_add<…>> "
                 "elementwise     2 40.0 µs 20.0 µs\n"));
  // Neither NCCL nor stream waits here: no lines for them.
  CHECK_FALSE(Contains(text, "NCCL linkage"));
  CHECK_FALSE(Contains(text, "stream waits"));
}

TEST_CASE("NCCL calls are linked to their kernels through the external correlation") {
  ScratchDir dir;
  WriteLinkedRun(dir.path());
  const Report report = ReportOf(dir.path());

  const NcclLinkageReport& rank0 = ProcessNamed(report, "node1.201.vtrace").gpu.nccl;
  CHECK(rank0.calls == 1);
  CHECK(rank0.linked_calls == 1);
  CHECK(rank0.linked_kernels == 1);
  CHECK(rank0.nccl_kernels == 2);
  CHECK(rank0.unlinked_nccl_kernels == 1);
  REQUIRE(rank0.ops.size() == 1);
  CHECK(rank0.ops[0].op == "ncclAllReduce");
  CHECK(rank0.ops[0].calls == 1);
  CHECK(rank0.ops[0].linked_calls == 1);
  CHECK(rank0.ops[0].kernels == 1);
  CHECK(rank0.ops[0].gpu_time_total_ns == 30000);
  CHECK(rank0.ops[0].gpu_time_mean_ns == 30000);
  CHECK(rank0.ops[0].host_time_mean_ns == 10000);

  // Rank 1's kernel came before its call's event.
  const NcclLinkageReport& rank1 = ProcessNamed(report, "node1.202.vtrace").gpu.nccl;
  CHECK(rank1.linked_calls == 1);
  CHECK(rank1.unlinked_nccl_kernels == 0);
  CHECK(rank1.linked_kernels_without_call == 0);
  CHECK(rank1.ops.at(0).gpu_time_total_ns == 50000);

  // In the communicator table: 2 rank-calls, 30 + 50 µs.
  const OpReport& op = report.communicators.at(0).ops.at(0);
  CHECK(op.gpu_linked_calls == 2);
  CHECK(op.gpu_time_total_ns == 80000);
  CHECK(op.gpu_time_mean_ns == 40000);
  // 1 MiB all-reduce over 2 ranks (bus factor 1) in 40 µs of kernel time.
  REQUIRE(op.gpu_busbw_gbps);
  CHECK(*op.gpu_busbw_gbps == Approx(1048576.0 / 40000.0));

  const std::string text = TextOf(report);
  INFO(text);
  CHECK(Contains(Unwrapped(text),
                 "GPU kernel time per linked call (busbw in GB/s from it): "
                 "[1MiB,2MiB) 40.0 µs (2 calls, busbw 26.21)"));
  CHECK(Contains(Unwrapped(text), "2 NCCL kernels, 1 not linked to an intercepted call"));
}

TEST_CASE("stream waits are matched to event records by event_sync_id") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 400, 0);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  // Recorded on stream 5, waited on by stream 7; a wait with no record read.
  GpuBatchBuilder(trace).EventRecord(5, 9).Sync(2, 3000, 7, 9).Sync(2, 1000, 8, 11).Write();
  trace.AddFooter();
  trace.WriteTo(dir.File("node1.400.vtrace"));
  const Report report = ReportOf(dir.path());
  const StreamWaitReport& waits = report.processes.at(0).gpu.stream_waits;
  CHECK(waits.event_records == 1);
  CHECK(waits.waits == 2);
  CHECK(waits.matched_waits == 1);
  CHECK(waits.distinct_edges == 1);
  REQUIRE(waits.top_edges.size() == 1);
  CHECK(waits.top_edges[0].record_stream == 5);
  CHECK(waits.top_edges[0].wait_stream == 7);
  CHECK(waits.top_edges[0].count == 1);
  CHECK(Contains(Unwrapped(TextOf(report)),
                 " stream waits: 1 event records, 2 waits, 1 matched to a record; record stream → "
                 "waiting stream: 5→7 ×1 "));
}

TEST_CASE("the last capture status holds, and a conflict is shown with its detail") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 500, 0);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_SUBSCRIBER_CONFLICT,
                      "another tool holds the CUPTI subscriber", "/opt/nsys/libinjection.so");
  trace.AddFooter();
  trace.WriteTo(dir.File("node1.500.vtrace"));
  const Report report = ReportOf(dir.path());
  const GpuReport& gpu = report.processes.at(0).gpu;
  REQUIRE(gpu.capture);
  CHECK(gpu.capture->state == GpuCaptureState::kSubscriberConflict);
  CHECK(Contains(Unwrapped(TextOf(report)),
                 " non-rank, node1.500.vtrace: capture subscriber conflict: another tool holds "
                 "the CUPTI subscriber; timestamps: cupti_timestamp_callback; "
                 "CUDA_INJECTION64_PATH was /opt/nsys/libinjection.so "));
  const JsonValue json = JsonOf(report);
  const JsonValue& capture = json["processes"][0]["gpu"]["capture"];
  CHECK(capture["state"].string() == "subscriber_conflict");
  CHECK(capture["detail"].string() == "another tool holds the CUPTI subscriber");
  CHECK(capture["cuda_injection_found"].string() == "/opt/nsys/libinjection.so");
}

TEST_CASE("JSON GPU keys read back") {
  ScratchDir dir;
  WriteLinkedRun(dir.path());
  WriteComputeProcess(dir.path());
  const JsonValue json = JsonOf(ReportOf(dir.path()));

  const JsonValue& rank0 = json["processes"][0]["gpu"];  // node1.201.vtrace
  CHECK(rank0["capture"]["state"].string() == "active");
  CHECK(rank0["capture"]["timestamp_source"].string() == "cupti_timestamp_callback");
  CHECK(rank0["kernels"]["count"].number() == 2);
  CHECK(rank0["kernels"]["total_ns"].number() == 35000);
  const JsonValue& linkage = rank0["nccl_linkage"];
  CHECK(linkage["calls"].number() == 1);
  CHECK(linkage["linked_calls"].number() == 1);
  CHECK(linkage["grouped_calls"].number() == 0);
  CHECK(linkage["nccl_kernels"].number() == 2);
  CHECK(linkage["unlinked_nccl_kernels"].number() == 1);
  const JsonValue& op = linkage["ops"][0];
  CHECK(op["op"].string() == "ncclAllReduce");
  CHECK(op["gpu_time_total_ns"].number() == 30000);
  CHECK(op["gpu_time_mean_ns"].number() == 30000);
  CHECK(op["host_time_mean_ns"].number() == 10000);
  CHECK(rank0["kernel_classes"][0]["class"].string() == "nccl");
  CHECK(rank0["kernel_classes"][0]["share"].number() == Approx(1.0));
  CHECK(rank0["top_kernels"][0]["name"].string() == kNcclAllReduce);

  const JsonValue& compute = json["processes"][2]["gpu"];  // node1.300.vtrace
  CHECK(compute["memcpy"]["bytes"].number() == 2 << 20);
  CHECK(compute["memset"]["count"].number() == 1);
  CHECK(compute["syncs"]["total_ns"].number() == 2000);
  CHECK(compute["api_calls"].number() == 3);
  CHECK(compute["dropped_records"].number() == 7);
  CHECK(compute["cupti_overhead_ns"].number() == 1500);
  CHECK(compute["top_kernels"][1]["name"].string() == kElementwise);
  CHECK(compute["stream_waits"]["edges"].array().empty());

  const JsonValue& comm_op = json["communicators"][0]["ops"][0];
  CHECK(comm_op["gpu_linked_calls"].number() == 2);
  CHECK(comm_op["gpu_time_total_ns"].number() == 80000);
  CHECK(comm_op["gpu_time_mean_ns"].number() == 40000);
  CHECK(comm_op["gpu_busbw_gbps"].number() == Approx(1048576.0 / 40000.0));
}

TEST_CASE("without GPU capture the report says so") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const Report report = ReportOf(dir.path());
  CHECK(Contains(TextOf(report), "\nGPU: no GPU capture in any process\n"));
  const JsonValue json = JsonOf(report);
  CHECK(json["processes"][1]["gpu"]["capture"].is_null());
  CHECK(json["processes"][1]["gpu"]["batches"].number() == 0);
  CHECK(json["communicators"][0]["ops"][0]["gpu_time_mean_ns"].is_null());
}

TEST_CASE("GPU lines fit 100 columns with long names and large values") {
  ScratchDir dir;
  WriteLinkedRun(dir.path());
  TraceFileBuilder trace("a-long-host-name-0001.cluster.example.org", 4194303, 16383);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_FAILED,
                      "CUPTI refused CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: "
                      "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  GpuBatchBuilder batch(trace);
  for (uint32_t i = 0; i < 12; ++i) {
    batch.Kernel(
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_"
        "tn_align8_variant_" +
            std::to_string(i) + ">(Params)",
        123'456'789'012 + i);
  }
  for (uint32_t stream = 1; stream <= 12; ++stream) {
    batch.EventRecord(1000000 + stream, stream, stream).Sync(2, 1, 2000000 + stream, stream);
  }
  batch.Dropped(123456789).Write();
  trace.AddFooter();
  trace.WriteTo(dir.File("a-long-host-name-0001.cluster.example.org.4194303.7.vtrace"));
  std::istringstream lines(TextOf(ReportOf(dir.path())));
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(DisplayWidth(line) <= 100);
  }
}

namespace {

// The GpuDevice record of one GPU, as the capture side writes it from CUPTI's DEVICE record.
void AddDevice(vprof::trace::GpuBatch& batch, uint32_t id, const std::string& uuid_bytes) {
  vprof::trace::GpuDevice& device = *batch.add_device();
  device.set_id(id);
  device.set_uuid(uuid_bytes);
  device.set_name("NVIDIA H200");
}

void AddGpuBatch(TraceFileBuilder& trace, vprof::trace::GpuBatch batch) {
  vprof::trace::TracePacket packet;
  *packet.mutable_gpu_batch() = std::move(batch);
  trace.AddPacket(std::move(packet));
}

// A Communicator packet with the CUDA device NCCL reported for it.
void AddCommunicatorOnDevice(TraceFileBuilder& trace, uint64_t comm_id, uint32_t nranks,
                             uint32_t rank, int32_t cuda_device) {
  vprof::trace::TracePacket packet;
  vprof::trace::Communicator& comm = *packet.mutable_communicator();
  comm.set_comm_id(comm_id);
  comm.set_nranks(nranks);
  comm.set_rank(rank);
  comm.set_created_by_iid(trace.Intern("ncclCommInitRank"));
  comm.set_cuda_device(cuda_device);
  trace.AddPacket(std::move(packet));
}

// Bytes 00 11 22 ... ff, and the same reversed.
const std::string kUuidA("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff", 16);
const std::string kUuidB("\xff\xee\xdd\xcc\xbb\xaa\x99\x88\x77\x66\x55\x44\x33\x22\x11\x00", 16);
constexpr const char* kUuidAText = "GPU-00112233-4455-6677-8899-aabbccddeeff";
constexpr const char* kUuidBText = "GPU-ffeeddcc-bbaa-9988-7766-554433221100";
constexpr uint64_t kSolo = 0xdef;

// Two processes on node1 that both see GPUs 0 (UUID A) and 1 (UUID B), as CUPTI describes every
// visible GPU. Global rank 0 (pid 201) is comm rank 1 of 0xabc on device 1; global rank 1
// (pid 202) is comm rank 0 on device 0. Rank 0 is also alone in 0xdef, device unknown (-1).
void WriteMembersRun(const std::string& directory) {
  for (int32_t rank = 0; rank < 2; ++rank) {
    TraceFileBuilder trace("node1", 201 + rank, rank);
    AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
    vprof::trace::GpuBatch devices;
    AddDevice(devices, 0, kUuidA);
    AddDevice(devices, 1, kUuidB);
    AddGpuBatch(trace, devices);
    AddCommunicatorOnDevice(trace, kComm, 2, rank == 0 ? 1 : 0, rank == 0 ? 1 : 0);
    if (rank == 0) AddCommunicatorOnDevice(trace, kSolo, 1, 0, -1);
    trace.AddBatch(
        {trace.Event("ncclAllReduce", kComm, 2, rank == 0 ? 1 : 0, 1, 1024, 1000, 2000)});
    trace.AddFooter();
    trace.WriteTo(directory + "/node1." + std::to_string(201 + rank) + ".vtrace");
  }
}

}  // namespace

TEST_CASE("a GPU UUID is written as nvidia-smi writes it") {
  CHECK(FormatGpuUuid(kUuidA) == kUuidAText);
  CHECK(FormatGpuUuid(kUuidB) == kUuidBText);
  CHECK(FormatGpuUuid("") == "");
  CHECK(FormatGpuUuid(kUuidA.substr(0, 15)) == "");  // not a UUID: unknown
}

TEST_CASE("communicator members: comm rank, global rank, host and the GPU UUID of each") {
  ScratchDir dir;
  WriteMembersRun(dir.path());
  const Report report = ReportOf(dir.path());
  REQUIRE(report.communicators.size() == 2);
  const CommunicatorReport& world = report.communicators[0];
  REQUIRE(world.comm_id == kComm);
  REQUIRE(world.members.size() == 2);
  // Comm rank 0 is global rank 1 on device 0 (UUID A); comm rank 1 is global rank 0 on device 1.
  CHECK(world.members[0].comm_rank == 0);
  CHECK(world.members[0].rank == 1);
  CHECK(world.members[0].file == "node1.202.vtrace");
  CHECK(world.members[0].host == "node1");
  CHECK(world.members[0].cuda_device == 0);
  CHECK(world.members[0].gpu_uuid == kUuidAText);
  CHECK(world.members[1].comm_rank == 1);
  CHECK(world.members[1].rank == 0);
  CHECK(world.members[1].file == "node1.201.vtrace");
  CHECK(world.members[1].cuda_device == 1);
  CHECK(world.members[1].gpu_uuid == kUuidBText);
  const CommunicatorReport& solo = report.communicators[1];
  REQUIRE(solo.members.size() == 1);
  CHECK(solo.members[0].cuda_device == -1);
  CHECK(solo.members[0].gpu_uuid.empty());

  // Every process lists the GPUs it saw.
  const GpuReport& gpu = ProcessNamed(report, "node1.201.vtrace").gpu;
  REQUIRE(gpu.devices.size() == 2);
  CHECK(gpu.devices[1].id == 1);
  CHECK(gpu.devices[1].uuid == kUuidBText);
  CHECK(gpu.devices[1].name == "NVIDIA H200");

  const std::string text = TextOf(report);
  INFO(text);
  // Columns: comm rank (9, right), rank (4, right), host (5), device (6, right), GPU UUID; two
  // spaces apart, indented by 4.
  CHECK(Contains(text, "\n  members:\n    comm rank  rank  host   device  GPU UUID"));
  CHECK(Contains(text, std::string("\n            0     1  node1       0  ") + kUuidAText + "\n"));
  CHECK(Contains(text, std::string("\n            1     0  node1       1  ") + kUuidBText + "\n"));
  CHECK(Contains(text, "\n            0     0  node1       -  -\n"));  // 0xdef: device unknown

  const JsonValue json = JsonOf(report);
  const JsonValue& member = json["communicators"][0]["members"][1];
  CHECK(member["comm_rank"].number() == 1);
  CHECK(member["rank"].number() == 0);
  CHECK(member["file"].string() == "node1.201.vtrace");
  CHECK(member["host"].string() == "node1");
  CHECK(member["cuda_device"].number() == 1);
  CHECK(member["gpu_uuid"].string() == kUuidBText);
  const JsonValue& unknown = json["communicators"][1]["members"][0];
  CHECK(unknown["cuda_device"].is_null());
  CHECK(unknown["gpu_uuid"].is_null());
  const JsonValue& device = json["processes"][0]["gpu"]["devices"][0];
  CHECK(device["id"].number() == 0);
  CHECK(device["uuid"].string() == kUuidAText);
  CHECK(device["name"].string() == "NVIDIA H200");
}

namespace {

// Each figure of `totals` against the one expected, as read and as the JSON writes it.
void CheckTotals(const ActivityTotals& totals, uint64_t count, uint64_t bytes, int64_t ns) {
  CHECK(totals.count == count);
  CHECK(totals.bytes == bytes);
  CHECK(totals.total_ns == ns);
}
void CheckTotals(const JsonValue& totals, uint64_t count, uint64_t bytes, int64_t ns) {
  CHECK(totals["count"].number() == static_cast<double>(count));
  CHECK(totals["bytes"].number() == static_cast<double>(bytes));
  CHECK(totals["total_ns"].number() == static_cast<double>(ns));
}

// A copy of kind `copy_kind`, from memory of kind `src_kind` into `dst_kind` where given
// (CUPTI's enums: 1 pageable, 2 pinned, 3 device).
vprof::trace::GpuMemcpy Copy(uint32_t copy_kind, uint64_t bytes, uint64_t duration_ns,
                             uint32_t src_kind = 0, uint32_t dst_kind = 0) {
  vprof::trace::GpuMemcpy copy;
  copy.set_copy_kind(copy_kind);
  copy.set_bytes(bytes);
  copy.set_duration_ns(duration_ns);
  copy.set_src_kind(src_kind);
  copy.set_dst_kind(dst_kind);
  return copy;
}

// A MEMCPY2 record: a copy that names its source and destination devices.
vprof::trace::GpuMemcpy DeviceCopy(uint32_t copy_kind, uint32_t src_device, uint32_t dst_device,
                                   uint64_t bytes, uint64_t duration_ns) {
  vprof::trace::GpuMemcpy copy = Copy(copy_kind, bytes, duration_ns);
  copy.set_src_device(src_device);
  copy.set_dst_device(dst_device);
  return copy;
}

// One process without NCCL: two copies between GPUs, one by kind (PTOP, 10) of 3 MiB in 2.5 µs
// and one by its devices (0 -> 1, a MEMCPY2 record whose kind says DTOD) of 1 MiB in 1.5 µs; a
// copy within one GPU (DTOD, 8) of 512 B in 700 ns, a MEMCPY2-shaped copy from device 1 to
// itself of 2 KiB in 200 ns, and a host-to-device copy (HTOD, 1) of 1 KiB in 300 ns.
void WritePeerCopyProcess(const std::string& directory) {
  TraceFileBuilder trace("node1", 400, 0);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  vprof::trace::GpuBatch batch;
  *batch.add_memcpy() = Copy(10, 3 << 20, 2500);
  *batch.add_memcpy() = Copy(8, 512, 700);
  *batch.add_memcpy() = Copy(1, 1024, 300);
  *batch.add_memcpy() = DeviceCopy(8, 0, 1, 1 << 20, 1500);
  *batch.add_memcpy() = DeviceCopy(8, 1, 1, 2048, 200);
  AddGpuBatch(trace, batch);
  trace.AddFooter();
  trace.WriteTo(directory + "/node1.400.vtrace");
}

}  // namespace

TEST_CASE("copies between GPUs (PtoP) are counted apart from other copies") {
  ScratchDir dir;
  WritePeerCopyProcess(dir.path());
  const Report report = ReportOf(dir.path());
  const GpuReport& gpu = report.processes.at(0).gpu;
  // Peer: 2 copies, 3 MiB + 1 MiB = 4,194,304 B, 2500 + 1500 = 4000 ns.
  CheckTotals(gpu.peer_copies, 2, 4194304, 4000);
  // All copies: 5, 4,194,304 + 512 + 2048 + 1024 = 4,197,888 B, 4000 + 700 + 200 + 300 = 5200 ns.
  CheckTotals(gpu.memcpy, 5, 4197888, 5200);

  const std::string text = TextOf(report);
  INFO(text);
  CHECK(Contains(Unwrapped(text), "; memcpy 5, 4.00 MiB, 5.20 µs (peer 2, 4.00 MiB, 4.00 µs);"));
  const JsonValue json = JsonOf(report);
  const JsonValue& peer = json["processes"][0]["gpu"]["peer_copies"];
  CheckTotals(peer, 2, 4194304, 4000);

  // Data moved between GPUs outside NCCL: the process takes part in communication, so the
  // coverage check lists it.
  const TraceFileList traces = ListTraceFiles(dir.path());
  const Report strict = BuildReport(dir.path(), traces.paths, {true, std::nullopt});
  REQUIRE(strict.coverage);
  REQUIRE(strict.coverage->processes.size() == 1);
  CHECK(strict.coverage->processes[0].file == "node1.400.vtrace");
}

TEST_CASE("copies from or into pageable and pinned host memory are counted apart") {
  ScratchDir dir, summaries;
  TraceFileBuilder trace("node1", 400, 0);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  vprof::trace::GpuBatch batch;
  *batch.add_memcpy() = Copy(1, 1 << 20, 1000, 1, 3);  // pageable -> device
  *batch.add_memcpy() = Copy(2, 2048, 200, 3, 2);      // device -> pinned
  *batch.add_memcpy() = Copy(9, 100, 50, 2, 1);        // pinned -> pageable: pageable
  *batch.add_memcpy() = Copy(8, 4096, 300, 3, 3);      // device -> device: neither
  AddGpuBatch(trace, batch);
  trace.AddFooter();
  trace.WriteTo(dir.path() + "/node1.400.vtrace");

  const Report report = ReportOf(dir.path());
  const GpuReport& gpu = report.processes.at(0).gpu;
  // Pageable: 1 MiB + 100 B = 1,048,676 B in 1000 + 50 ns; pinned: 2048 B in 200 ns.
  CheckTotals(gpu.pageable_copies, 2, 1048676, 1050);
  CheckTotals(gpu.pinned_copies, 1, 2048, 200);
  CHECK(gpu.memcpy.count == 4);
  CHECK(gpu.peer_copies.count == 0);
  const std::string text = Unwrapped(TextOf(report));
  INFO(text);
  CHECK(Contains(text,
                 "; memcpy 4, 1.01 MiB, 1.55 µs (pageable 2, 1.00 MiB, 1.05 µs; pinned 1, "
                 "2.00 KiB, 200 ns);"));

  // The same figures through a node summary.
  const std::string summary = summaries.File("node1.vsummary");
  REQUIRE(Run({"report", "--node-summary", summary, "--host", "node1", "--clock", "monotonic",
               dir.path()})
              .status == kExitOk);
  const CliResult merged = Run({"report", "--merge-summaries", summary, "--format", "json"});
  REQUIRE(merged.status == kExitOk);
  const JsonValue json = JsonValue::Parse(merged.out);
  const JsonValue& pageable = json["processes"][0]["gpu"]["pageable_copies"];
  CheckTotals(pageable, 2, 1048676, 1050);
  const JsonValue& pinned = json["processes"][0]["gpu"]["pinned_copies"];
  CheckTotals(pinned, 1, 2048, 200);
}

TEST_CASE("a node summary carries each member's device and the GPUs of each process") {
  ScratchDir dir, summaries;
  WriteMembersRun(dir.path());
  const std::string summary = summaries.File("node1.vsummary");
  REQUIRE(Run({"report", "--node-summary", summary, "--host", "node1", "--clock", "monotonic",
               dir.path()})
              .status == kExitOk);
  const CliResult merged = Run({"report", "--merge-summaries", summary, "--format", "json"});
  INFO(merged.err);
  REQUIRE(merged.status == kExitOk);
  const JsonValue json = JsonValue::Parse(merged.out);
  // As from the traces: comm rank 1 of 0xabc is global rank 0 on device 1 (UUID B).
  const JsonValue& member = json["communicators"][0]["members"][1];
  CHECK(member["rank"].number() == 0);
  CHECK(member["cuda_device"].number() == 1);
  CHECK(member["gpu_uuid"].string() == kUuidBText);
  CHECK(json["communicators"][1]["members"][0]["cuda_device"].is_null());
  CHECK(json["processes"][0]["gpu"]["devices"][0]["uuid"].string() == kUuidAText);
}

namespace {

// An active capture status in `packet`, for the test to fill in.
vprof::trace::GpuCaptureStatus& ActiveStatus(vprof::trace::TracePacket& packet) {
  vprof::trace::GpuCaptureStatus& status = *packet.mutable_gpu_capture();
  status.set_state(vprof::trace::GPU_CAPTURE_ACTIVE);
  return status;
}

}  // namespace

TEST_CASE("the light capture's status: selected API records, hardware timestamps refused") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 500, 0);
  vprof::trace::TracePacket packet;
  vprof::trace::GpuCaptureStatus& status = ActiveStatus(packet);
  status.set_capture_mode("light");
  status.set_api_records(vprof::trace::API_RECORDS_SELECTED);
  status.set_selected_runtime_apis(99);
  status.set_selected_driver_apis(163);
  status.set_hw_trace(vprof::trace::HW_TRACE_NOT_SUPPORTED);
  status.set_hw_trace_detail("CUPTI_ERROR_NOT_SUPPORTED");
  trace.AddPacket(std::move(packet));
  GpuBatchBuilder(trace).Api("cudaLaunchKernel_v7000", 1).Write();
  trace.AddFooter();
  trace.WriteTo(dir.File("node1.500.vtrace"));
  const Report report = ReportOf(dir.path());
  const GpuCaptureReport& capture = *report.processes.at(0).gpu.capture;
  CHECK(capture.mode == "light");
  CHECK(capture.api_records == ApiRecords::kSelected);
  CHECK(capture.selected_runtime_apis == 99);
  CHECK(capture.selected_driver_apis == 163);
  CHECK(capture.hw_trace == HwTraceState::kNotSupported);
  const std::string text = Unwrapped(TextOf(report));
  INFO(text);
  CHECK(Contains(text,
                 "VPROF_CUPTI_KINDS light (API records of launches, copies, memsets, "
                 "events, waits, syncs and CUDA IPC only: 99 runtime and 163 driver APIs)"));
  CHECK(
      Contains(text, "hardware kernel timestamps not supported here (CUPTI_ERROR_NOT_SUPPORTED)"));
  CHECK(Contains(text, "API calls 1 (selected APIs only)"));
}

TEST_CASE("a plan without SYNCHRONIZATION and CUDA_EVENT: syncs and stream waits not recorded") {
  for (const bool with_sync_kinds : {false, true}) {
    ScratchDir dir;
    TraceFileBuilder trace("node1", 510, 0);
    vprof::trace::TracePacket packet;
    vprof::trace::GpuCaptureStatus& status = ActiveStatus(packet);
    for (const char* kind : {"CONCURRENT_KERNEL", "MEMCPY", "EXTERNAL_CORRELATION"}) {
      status.add_activity_kinds(kind);
    }
    if (with_sync_kinds) {
      status.add_activity_kinds("SYNCHRONIZATION");
      status.add_activity_kinds("CUDA_EVENT");
    }
    trace.AddPacket(std::move(packet));
    GpuBatchBuilder(trace).Api("cudaLaunchKernel_v7000", 1).Write();
    trace.AddFooter();
    trace.WriteTo(dir.File("node1.510.vtrace"));
    const Report report = ReportOf(dir.path());
    const GpuCaptureReport& capture = *report.processes.at(0).gpu.capture;
    CHECK(capture.records_syncs == with_sync_kinds);
    CHECK(capture.records_event_records == with_sync_kinds);
    const std::string text = Unwrapped(TextOf(report));
    INFO(text);
    CHECK(Contains(text, "syncs not recorded") != with_sync_kinds);
    CHECK(Contains(text, "stream waits: not recorded") != with_sync_kinds);
    CHECK(Contains(text, "syncs 0, 0 ns") == with_sync_kinds);
    const JsonValue json = JsonOf(report);
    const JsonValue& gpu = json["processes"][0]["gpu"];
    CHECK(gpu["syncs"].is_null() != with_sync_kinds);
    CHECK(gpu["stream_waits"].is_null() != with_sync_kinds);
  }
}

TEST_CASE("a capture status from before api_records: RUNTIME among the kinds means every call") {
  for (const bool runtime : {true, false}) {
    ScratchDir dir;
    TraceFileBuilder trace("node1", 600, 0);
    vprof::trace::TracePacket packet;
    vprof::trace::GpuCaptureStatus& status = ActiveStatus(packet);
    status.add_activity_kinds("CONCURRENT_KERNEL");
    if (runtime) status.add_activity_kinds("RUNTIME");
    trace.AddPacket(std::move(packet));
    trace.AddFooter();
    trace.WriteTo(dir.File("node1.600.vtrace"));
    const Report report = ReportOf(dir.path());
    CHECK(report.processes.at(0).gpu.capture->api_records ==
          (runtime ? ApiRecords::kAll : ApiRecords::kNone));
  }
}
