#include "cupti/launch_cost.h"

#include <algorithm>
#include <array>
#include <vector>

#include "interpose/core/clock.h"
#include "interpose/core/cuda_driver.h"
#include "interpose/core/fingerprint_fatbin.h"

namespace vprof {
namespace {

// 5 rounds of 64 launches each way, each batch behind 1 ms of waiting on the
// GPU: about 12 ms at the first context, a few more with the plan switched
// (one API at a time) ten times. Rounds alternate which way goes first, so a
// drift of the host's speed lands on both.
constexpr uint32_t kRounds = 5;
constexpr uint32_t kLaunchesPerRound = 64;
constexpr uint32_t kWarmupLaunches = 16;
constexpr unsigned long long kWaitNs = 1'000'000;

uint64_t Median(std::vector<uint64_t> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The driver objects of one calibration, released by the destructor.
struct Calibration {
  const CudaDriver& d;
  CUmodule module = nullptr;
  CUfunction kernel = nullptr, wait = nullptr;
  CUstream stream = nullptr;
  CUevent start = nullptr, end = nullptr;
  const char* step = "";
  CUresult result = CUDA_SUCCESS;

  explicit Calibration(const CudaDriver& driver) : d(driver) {}
  ~Calibration() {
    if (start) d.cuEventDestroy_v2(start);
    if (end) d.cuEventDestroy_v2(end);
    if (stream) d.cuStreamDestroy_v2(stream);
    if (module) d.cuModuleUnload(module);
  }

  bool Ok(const char* what, CUresult r) {
    step = what;
    result = r;
    return r == CUDA_SUCCESS;
  }

  bool SetUp() {
    return Ok("loading vprof's kernels", d.cuModuleLoadData(&module, kFingerprintFatbin)) &&
           Ok("finding vprof_calibrate",
              d.cuModuleGetFunction(&kernel, module, "vprof_calibrate")) &&
           Ok("finding vprof_calibrate_wait",
              d.cuModuleGetFunction(&wait, module, "vprof_calibrate_wait")) &&
           Ok("creating a stream", d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) &&
           Ok("creating an event", d.cuEventCreate(&start, CU_EVENT_DEFAULT)) &&
           Ok("creating an event", d.cuEventCreate(&end, CU_EVENT_DEFAULT)) &&
           Launch(kWarmupLaunches) && Ok("synchronising", d.cuStreamSynchronize(stream));
  }

  bool Launch(uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
      if (!Ok("launching vprof_calibrate",
              d.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr))) {
        return false;
      }
    }
    return true;
  }

  // One batch: the host's time per launch, and (when the wait covered the
  // host's launching) the GPU's per kernel, else 0.
  bool Batch(uint64_t* host_ns, uint64_t* gpu_ns) {
    unsigned long long wait_ns = kWaitNs;
    void* wait_args[] = {&wait_ns};
    const uint64_t waiting_from = NowNs();
    if (!Ok("launching vprof_calibrate_wait",
            d.cuLaunchKernel(wait, 1, 1, 1, 1, 1, 1, 0, stream, wait_args, nullptr)) ||
        !Ok("recording an event", d.cuEventRecord(start, stream))) {
      return false;
    }
    const uint64_t launching_from = NowNs();
    if (!Launch(kLaunchesPerRound)) return false;
    const uint64_t launched = NowNs();
    float ms = 0;
    if (!Ok("recording an event", d.cuEventRecord(end, stream)) ||
        !Ok("synchronising", d.cuStreamSynchronize(stream)) ||
        !Ok("timing events", d.cuEventElapsedTime_v2(&ms, start, end))) {
      return false;
    }
    *host_ns = (launched - launching_from) / kLaunchesPerRound;
    const bool covered = launched - waiting_from < kWaitNs;
    *gpu_ns = covered ? static_cast<uint64_t>(ms * 1e6f) / kLaunchesPerRound : 0;
    return true;
  }
};

}  // namespace

LaunchCost MeasureLaunchCost(CUcontext ctx, const std::function<bool(bool)>& record, bool was_on) {
  LaunchCost cost;
  CudaDriver d;
  std::string error;
  if (!FindLoadedCudaDriver(&d, &error)) {
    cost.failure = error;
    return cost;
  }
  if (d.cuCtxPushCurrent_v2(ctx) != CUDA_SUCCESS) {
    cost.failure = "the new context could not be made current";
    return cost;
  }
  cost.begin_ns = NowNs();
  std::array<std::vector<uint64_t>, 2> host, gpu;  // [plan on]
  bool plan_switched = true, done = false, gpu_covered = true;
  std::string failure;
  {
    Calibration c(d);
    done = c.SetUp();
    for (uint32_t round = 0; done && round < kRounds; ++round) {
      for (const bool on : {round % 2 == 0, round % 2 != 0}) {
        uint64_t host_ns = 0, gpu_ns = 0;
        if (!record(on)) {
          plan_switched = done = false;
          break;
        }
        if (!c.Batch(&host_ns, &gpu_ns)) {
          done = false;
          break;
        }
        host[on].push_back(host_ns);
        gpu[on].push_back(gpu_ns);
        gpu_covered &= gpu_ns > 0;
      }
    }
    if (!done && plan_switched)
      failure = std::string(c.step) + ": " + CudaResultString(d, c.result);
    // The plan as found, even after a failure (a refusal here is the
    // caller's to report: record() says so).
    if (!record(was_on)) plan_switched = false;
  }
  CUcontext popped = nullptr;
  d.cuCtxPopCurrent_v2(&popped);
  cost.end_ns = NowNs();
  if (!plan_switched) {
    cost.failure = "the capture plan could not be switched";
  } else if (!done) {
    cost.failure = failure;
  } else {
    cost.rounds = kRounds;
    cost.launches_per_round = kLaunchesPerRound;
    cost.bare_launch_ns = Median(host[0]);
    cost.traced_launch_ns = Median(host[1]);
    if (gpu_covered) {
      cost.bare_kernel_gpu_ns = Median(gpu[0]);
      cost.traced_kernel_gpu_ns = Median(gpu[1]);
    } else {
      cost.gpu_failure = "the host launched a batch slower than the 1 ms wait kernel covered";
    }
  }
  return cost;
}

}  // namespace vprof
