// Packets the export tests need beyond TraceFileBuilder's (NCCL events on a
// chosen thread with a call_id, GPU records with every field a timeline
// shows, NVTX ranges, thread names, NCCL profiler-plugin batches), and the
// two-rank run the chrome and hta tests export.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace_file_builder.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter::testing {

// A GpuBatch assembled record by record; names are interned as they are used,
// before the batch is added, as the capture side does.
class ExportGpuBatch {
 public:
  explicit ExportGpuBatch(TraceFileBuilder& trace) : trace_(trace) {}

  ExportGpuBatch& Kernel(std::string_view name, uint64_t start_ns, uint64_t duration_ns,
                         uint32_t correlation_id, uint32_t stream, uint32_t grid_x = 1,
                         uint32_t block_x = 1);
  // A host-to-device copy from pageable memory.
  ExportGpuBatch& Memcpy(uint64_t bytes, uint64_t start_ns, uint64_t duration_ns,
                         uint32_t correlation_id, uint32_t stream);
  ExportGpuBatch& GraphReplay(uint32_t graph_id, uint64_t start_ns, uint64_t duration_ns,
                              uint32_t correlation_id, uint32_t stream);
  ExportGpuBatch& Api(std::string_view name, uint32_t tid, uint64_t start_ns, uint64_t duration_ns,
                      uint32_t correlation_id);
  ExportGpuBatch& External(uint64_t call_id, uint32_t correlation_id);
  // A device-memory allocation or (`release`) release of `bytes` on `device`.
  ExportGpuBatch& Memory(bool release, uint64_t bytes, uint64_t at_ns, uint32_t correlation_id,
                         uint32_t device, uint32_t memory_kind = 3);
  void Write();

 private:
  TraceFileBuilder& trace_;
  vprof::trace::GpuBatch batch_;
};

// An EventBatch of thread `tid`.
void AddEventBatch(TraceFileBuilder& trace, uint32_t tid,
                   const std::vector<vprof::trace::NcclEvent>& events);

vprof::trace::NvtxRange NvtxPushPop(TraceFileBuilder& trace, std::string_view name,
                                    uint64_t start_ns, uint64_t end_ns, uint32_t depth);
vprof::trace::NvtxRange NvtxMark(TraceFileBuilder& trace, std::string_view name, uint64_t at_ns);
// Started on thread `start_tid`, ended on the thread whose batch holds it.
vprof::trace::NvtxRange NvtxStartEnd(TraceFileBuilder& trace, std::string_view name,
                                     uint64_t start_ns, uint64_t end_ns, uint32_t start_tid);
void AddNvtxBatch(TraceFileBuilder& trace, uint32_t tid,
                  const std::vector<vprof::trace::NvtxRange>& ranges);

void AddThreadName(TraceFileBuilder& trace, uint32_t tid, std::string name);

// One plugin context (a communicator) and one COLL event in it.
struct PluginColl {
  uint64_t context_id = 0;
  uint64_t comm_hash = 0;
  std::string_view comm_name;
  uint32_t nranks = 0;
  uint32_t rank = 0;
  std::string_view function;
  std::string_view algorithm;
  std::string_view protocol;
  uint32_t channels = 0;
  uint64_t start_ns = 0;
  uint64_t stop_ns = 0;
};
void AddPluginColl(TraceFileBuilder& trace, const PluginColl& coll);

// The two-rank run: rank 0 on host A, rank 1 on host B, whose clocks differ.
// Times below are offsets from each rank's base on its own trace clock.
namespace export_run {

constexpr uint64_t kComm = 0xC0FFEE;
constexpr uint64_t kCount = 1 << 20;
constexpr uint64_t kBytes = kCount * 4;
constexpr uint64_t kCallId = 1;  // per process: both ranks' all-reduce
constexpr uint32_t kNcclStream = 13;
constexpr uint32_t kComputeStream = 7;
constexpr uint32_t kCalibrationStream = 9;  // vprof's own stream
constexpr std::string_view kCalibrationKernel = "vprof_calibrate";
// CLOCK_REALTIME − CLOCK_MONOTONIC on each host.
constexpr int64_t kOffsetA = 1'700'000'000'000'000'000;
constexpr int64_t kOffsetB = 1'699'999'990'000'000'123;

struct Rank {
  std::string host;
  uint32_t pid;
  uint32_t tid;
  uint64_t base_ns;  // where the rank's times start, on its trace clock
  int64_t offset_ns;
  // The all-reduce: host call, its launch API and its kernel.
  uint64_t call_enter, call_exit;
  uint32_t nccl_correlation;
  uint64_t launch_start, launch_duration;
  uint64_t kernel_start, kernel_duration;
};

// Rank 0 also has: NVTX "step" [1000, 9000] holding "forward" [1500, 4000]
// and the mark "checkpoint" at 5000, a thread name, a compute kernel "gemm"
// (correlation 22, launched at 2000 for 200, run at 2500 for 1000 on the
// compute stream, grid 4, block 128), a 4096-byte copy (correlation 23,
// cudaMemcpyAsync at 3000 for 100, copied at 3200 for 400) and an NCCL
// plugin COLL (RING, LL, 2 channels, 5550 to 6400), and vprof's own
// calibration kernel (kCalibrationKernel at 300 for 2, on kCalibrationStream). Rank 1 writes its
// GPU batch before the event batch of its all-reduce, an NVTX "step" [1000, 9000] and a start/end
// range "load" [500, 8000] started on thread 22.
const Rank& RankInfo(int rank);

// The mangled name CUPTI reports for the all-reduce kernel, and demangled.
inline constexpr std::string_view kNcclKernelMangled =
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
inline constexpr std::string_view kNcclKernelName =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

std::string FileName(int rank);  // <host>.<pid>.vtrace
// The builder of a rank's whole trace, for tests that write it cut.
TraceFileBuilder Trace(int rank);
// Both ranks' traces, whole, into `directory`.
void Write(const std::string& directory);

}  // namespace export_run

}  // namespace vprof::reporter::testing
