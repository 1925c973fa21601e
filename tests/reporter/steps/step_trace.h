// Test helper: one process's trace for the step analysis, written as the
// capture side writes it. Times are in µs after kBase; every kernel, copy and
// the API call that launched it share a fresh CUPTI correlation id, and an
// NCCL kernel given a call id gets its ExternalCorrelation and NcclEvent.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reporter/model/report.h"
#include "trace_file_builder.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter::testing {

inline constexpr int64_t kStepBase = 1'000'000'000;  // ns; time 0 of the helper
inline constexpr int64_t kStepUs = 1000;

// Kernel names the tests use: one per class the step analysis tells apart.
inline constexpr std::string_view kGemmKernel = "sm90_xmma_gemm_f16f16_f32";
inline constexpr std::string_view kAllReduceKernel = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
inline constexpr std::string_view kAdamKernel =
    "multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor>";

// `vprof report DIR` of the traces in `directory`, with the step options
// given; throws when the directory cannot be listed.
Report StepReportOf(const std::string& directory, uint32_t warmup,
                    std::vector<std::string> patterns = {});

class StepTrace {
 public:
  StepTrace(std::string host, uint32_t pid, int32_t rank, uint64_t comm_id = 0xA,
            uint32_t comm_size = 2);

  // A push/pop NVTX range on thread 1 (default domain); written by FlushNvtx.
  void Range(std::string_view name, int64_t start_us, int64_t end_us, uint32_t depth = 0);
  // A kernel launched (cudaLaunchKernel started) at `launch_us`, running
  // [start_us, end_us) on `stream`. With `call_id`, launched by an
  // ncclAllReduce of `bytes` on the helper's communicator. Returns its correlation id.
  uint32_t Kernel(std::string_view name, uint32_t stream, int64_t launch_us, int64_t start_us,
                  int64_t end_us, uint64_t call_id = 0, uint64_t bytes = 0);
  // The thread the kernels added from now on are launched from (1 until set).
  void LaunchFrom(uint32_t tid) { launch_tid_ = tid; }
  uint32_t Memcpy(uint32_t stream, int64_t launch_us, int64_t start_us, int64_t end_us);
  // A cudaGraphLaunch at `launch_us` of graph `graph_id`, whose nodes (gemm
  // kernels) run [start_us, end_us) each on `stream`: recorded node by node,
  // or with `whole` as one GpuGraphReplay from the first start to the last end.
  uint32_t GraphLaunch(uint32_t graph_id, uint32_t stream, int64_t launch_us,
                       const std::vector<std::pair<int64_t, int64_t>>& nodes, bool whole);
  // An API call that launches nothing (cudaProfilerStart).
  void Api(std::string_view name, int64_t at_us);
  // A GpuCaptureStatus in `state`: capture on (ACTIVE) or why not.
  void CaptureState(vprof::trace::GpuCaptureState state);
  // A GpuCaptureStatus whose kinds include MEMORY2: the capture recorded memory.
  void RecordsMemory();
  // A GpuCaptureStatus of a capture that records no API calls (a
  // VPROF_CUPTI_KINDS list of kinds only); the kernels added from now on have
  // no launch record.
  void RecordsNoApiCalls();
  // A cudaMalloc of device memory at `at_us` (its call lasting 2 µs) and its
  // GpuMemoryOp; a cudaFree and its release.
  void Allocate(int64_t bytes, int64_t at_us);
  void Release(int64_t bytes, int64_t at_us);
  // NVML's sample of a GPU's memory in use at `at_us`, of 80 GiB, as its own packet.
  void DeviceMemory(uint64_t used_bytes, int64_t at_us, uint32_t device = 0);
  // The DeviceMemorySampling packet: whether sampling ran, and why not.
  void MemorySampling(bool sampling, const std::string& why_not = "");

  // The RunHeader's VPROF_DEEP (unset: always).
  void DeepSchedule(std::string schedule) { deep_schedule_ = std::move(schedule); }
  // A deep window [start_us, end_us) as the capture writes it: opened, then closed.
  void DeepWindow(int64_t start_us, int64_t end_us);

  // Writes what was added since the last flush as one packet.
  void FlushNvtx();
  void FlushGpu();
  void FlushNccl();

  // The file, with `env` in its RunHeader.
  void WriteTo(const std::string& path, const std::map<std::string, std::string>& env = {});

 private:
  TraceFileBuilder trace_;
  std::string host_;
  uint32_t pid_;
  int32_t rank_;
  uint64_t comm_id_;
  uint32_t comm_size_;
  void MemoryCall(int64_t bytes, int64_t at_us, bool release);
  // A new correlation id, and the API call that queued its work (2 µs from
  // `at_us` on thread `tid`) unless RecordsNoApiCalls() was called.
  uint32_t Call(std::string_view api_name, int64_t at_us, uint32_t tid);

  std::string deep_schedule_;  // VPROF_DEEP; unset: always
  uint32_t launch_tid_ = 1;
  bool api_calls_ = true;
  uint32_t next_correlation_ = 1;
  uint64_t next_seq_ = 1;
  vprof::trace::NvtxBatch nvtx_;
  vprof::trace::GpuBatch gpu_;
  std::vector<vprof::trace::NcclEvent> nccl_;
};

}  // namespace vprof::reporter::testing
