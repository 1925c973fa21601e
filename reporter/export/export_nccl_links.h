// Ties one process's NCCL calls to the CUDA API calls and kernels they
// started, so an exported timeline can draw an arrow from each call to its
// kernels and label both with the call. The same chain as the report's
// linkage (NcclKernelLinker): CUPTI writes an ExternalCorrelation (call_id →
// correlation_id) for every CUDA API call made inside an NCCL call, and the
// API record and the GPU record of a launch carry that correlation_id.
//
// The exporter writes records as they stream past, so this keeps only what
// is in flight, and a kernel that arrives before its call's NcclEvent (the
// two come in any order) is held until the event is read:
//  - a correlation from its ExternalCorrelation until both its API record and
//    its GPU record were read, or its API record shows no GPU work;
//  - a call while a correlation of its is open, and a call that can launch
//    kernels (collectives and send/recv outside a group, the ncclGroupEnd
//    closing the outermost group) from its event until a kernel links to it;
//  - kernels whose call's event has not been read yet.
// An entry never matched stays until the end of the process, as in the
// report: a launch whose GPU record was dropped or never ran (launches
// during CUDA graph capture), a call whose kernel never came.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "reporter/collectives/nccl_function.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

// An intercepted NCCL call, as the exporters label its kernels with it.
struct NcclCallSite {
  vprof::trace::NcclEvent event;  // as recorded
  std::string name;               // the function's name, as interned
  NcclFunction function = NcclFunction::kUnknown;
  uint32_t tid = 0;      // the thread that made the call
  int64_t enter_ns = 0;  // on the export's timeline
  int64_t exit_ns = 0;
};

// Whether NCCL launches kernels during the call itself: inside a group it only
// queues work, which the ncclGroupEnd closing the outermost group (at depth 1
// when called) launches.
bool MayLaunchKernels(NcclFunction function, uint32_t group_depth);

class NcclLaunchLinks {
 public:
  struct KernelLink {
    std::optional<uint64_t> call_id;   // the NCCL call it was launched in
    std::optional<NcclCallSite> call;  // that call, when its event was read
    bool held = false;                 // kept until the call's event comes (AddCall, TakeHeld)
  };

  // A call's event; `may_launch` as MayLaunchKernels says. Returns the kernels
  // held for it, now linked to it.
  std::vector<vprof::trace::GpuKernel> AddCall(const NcclCallSite& call, bool may_launch);
  void AddExternalCorrelation(uint64_t call_id, uint32_t correlation_id);
  // A CUDA API record: the NCCL call it was made in, if any.
  std::optional<uint64_t> AddApiCall(uint32_t correlation_id, bool launches_gpu_work);
  // A kernel record; when `held` comes back set, the kernel was kept.
  KernelLink AddKernel(const vprof::trace::GpuKernel& kernel);
  // A memcpy or memset record: the NCCL call it was made in, if any. Never held:
  // only kernels are drawn as the call's work.
  std::optional<uint64_t> AddCopyOrSet(uint32_t correlation_id);
  // At the end of the process: the kernels whose call's event never came.
  std::vector<vprof::trace::GpuKernel> TakeHeld();

  // Open correlations plus calls (the memory bound, for tests).
  size_t held_entries() const { return correlations_.size() + calls_.size(); }

 private:
  struct Correlation {
    uint64_t call_id = 0;
    bool api_seen = false;
    bool gpu_record_seen = false;
  };
  struct CallState {
    std::optional<NcclCallSite> site;
    bool may_launch = false;
    uint32_t open_correlations = 0;
    bool linked = false;
    std::vector<vprof::trace::GpuKernel> held;
  };
  using Correlations = std::unordered_map<uint32_t, Correlation>;
  using Calls = std::unordered_map<uint64_t, CallState>;

  // Marks the correlation's GPU record read; closes it when its API record was too.
  void GpuRecordSeen(Correlations::iterator correlation);
  void Close(Correlations::iterator correlation);
  void RetireIfDone(Calls::iterator call);

  Correlations correlations_;  // by correlation_id
  Calls calls_;                // by call_id
};

}  // namespace vprof::reporter
