// Folds a process's RunHeader, ProcessTitle, LoadedLibraries and GpuBatch packets into an
// InferredPhaseInput as the trace streams past.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reporter/base/trimmed_vector.h"
#include "reporter/phases/inferred_phase_record.h"
#include "reporter/trace/gpu_batch_records.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

class InferredPhaseReader {
 public:
  InferredPhaseReader();

  void AddHeader(const vprof::trace::RunHeader& header);
  void AddProcessTitle(const vprof::trace::ProcessTitle& title);
  void AddLoadedLibraries(const vprof::trace::LoadedLibraries& libraries);
  void AddGpuBatch(const GpuBatchRecords& batch);
  // The input as read so far; the role told from the header, the latest
  // title and, when they do not tell it, `kernels` (GpuRecord's by name).
  InferredPhaseInput Result(const std::map<std::string, ActivityTotals>& kernels) const;

 private:
  void AddKernel(uint64_t start_ns, uint64_t end_ns);

  InferredPhaseInput input_;
  std::vector<std::string> argv_;
  std::vector<std::string> environment_;     // the variables' names
  uint64_t start_ns_ = 0;                    // RunHeader.start_ns
  std::optional<ProcessTitleRecord> title_;  // the latest
  std::vector<std::string> role_libraries_;  // loaded objects that name a role, each once
  bool any_kernel_ = false;
  using Interval = std::pair<uint64_t, uint64_t>;  // [start, end) in ns

  // The union of the kernels' intervals, disjoint, by start. CUPTI
  // delivers kernels nearly in time order, so only the latest thousand
  // intervals are kept open; older ones are added to input_.kernel_busy_ns
  // and a kernel reaching before `closed_until_ns_` counts only after it.
  TrimmedVector<Interval> open_;
  uint64_t closed_until_ns_ = 0;
};

}  // namespace vprof::reporter
