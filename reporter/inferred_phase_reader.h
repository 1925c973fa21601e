// Folds a process's RunHeader and GpuBatch packets into an InferredPhaseInput
// as the trace streams past.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "reporter/inferred_phase_record.h"
#include "reporter/trimmed_vector.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

class InferredPhaseReader {
 public:
  using NameLookup = std::function<std::string(uint64_t iid)>;

  explicit InferredPhaseReader(NameLookup name_of);

  void AddHeader(const vprof::trace::RunHeader& header);
  void AddGpuBatch(const vprof::trace::GpuBatch& batch);
  // The input as read so far.
  InferredPhaseInput Result() const;

 private:
  void AddKernel(uint64_t start_ns, uint64_t end_ns);
  void AddLaunchThread(uint32_t correlation_id, uint32_t tid);
  // Counts a kernel launched off the main thread.
  void AddKernelThread(const vprof::trace::GpuKernel& kernel);

  NameLookup name_of_;
  InferredPhaseInput input_;
  bool any_kernel_ = false;
  using Interval = std::pair<uint64_t, uint64_t>;  // [start, end) in ns

  // The union of the kernels' intervals, disjoint, by start. CUPTI
  // delivers kernels nearly in time order, so only the latest thousand
  // intervals are kept open; older ones are added to input_.kernel_busy_ns
  // and a kernel reaching before `closed_until_ns_` counts only after it.
  TrimmedVector<Interval> open_;
  uint64_t closed_until_ns_ = 0;

  // The launching thread of each kernel, from the API call of its
  // correlation id. The main thread is the one that launched the first
  // kernel; once it is known, only other threads' calls are kept (a kernel
  // with no call kept was launched by the main thread), the latest
  // kMaxLaunchThreads of them, by correlation id.
  using LaunchThread = std::pair<uint32_t, uint32_t>;  // (correlation id, tid)
  TrimmedVector<LaunchThread> launch_threads_;
  std::optional<uint32_t> main_tid_;
  std::unordered_map<uint64_t, ActivityTotals> off_main_by_iid_;  // by kernel name iid
};

}  // namespace vprof::reporter
