// The step analysis of one process as its trace streams past: NVTX step and
// backward ranges, GPU records (kernels, copies, the API calls that launched
// them, their links to NCCL calls) and NCCL calls go in; one StepResult per
// step comes out, both for the NVTX steps and the inferred ones
// (nvtx_step_collector.h, optimizer_step_collector.h say when a step is
// closed). Between the records and the collectors, what is in flight is kept
// in capped tables: a launch until its GPU work arrives, GPU work until its
// launch record arrives, NCCL calls and correlations for the steps still open.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "reporter/nccl_function.h"
#include "reporter/steps/nvtx_step_collector.h"
#include "reporter/steps/optimizer_step_collector.h"
#include "reporter/steps/step_patterns.h"
#include "reporter/steps/step_record.h"
#include "reporter/steps/step_segments.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

class StepTracker {
 public:
  using NameLookup = std::function<std::string(uint64_t iid)>;

  StepTracker(NameLookup name_of, const StepPatterns& patterns);

  void AddEnvironment(const vprof::trace::RunHeader& header);
  void AddNvtxBatch(const vprof::trace::NvtxBatch& batch);
  void AddGpuBatch(const vprof::trace::GpuBatch& batch);
  void AddNcclCall(const vprof::trace::NcclEvent& event, NcclFunction function);

  // Closes the steps still open; the result is final.
  ProcessSteps Finish();

 private:
  // Each table holds at most this many entries, the oldest dropped first:
  // entries never matched (dropped records) must not pile up.
  static constexpr size_t kMaxInFlight = size_t{1} << 16;
  static constexpr size_t kMaxPhaseRanges = 4096;

  struct KernelInfo {
    WorkKind kind = WorkKind::kCompute;
    bool optimizer = false;
    NcclFunction named_function = NcclFunction::kUnknown;  // guessed from the kernel name
  };
  struct ApiInfo {
    bool launches_work = false;
    bool profiler_start = false;
  };
  struct NcclCall {
    NcclFunction function = NcclFunction::kUnknown;
    uint64_t comm_id = 0;
    uint64_t bytes = 0;
  };
  enum class RangeRole : uint8_t { kNone, kStep, kPhase };
  struct RangeKind {
    RangeRole role = RangeRole::kNone;
    std::string_view phase;  // kPhase: the phase (phase_rules.h), static storage
  };
  struct PhaseRange {
    std::string_view phase;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };

  const KernelInfo& KernelNamed(uint64_t name_iid);
  const ApiInfo& ApiNamed(uint64_t name_iid);
  RangeKind KindOf(const vprof::trace::NvtxRange& range);
  void AddWork(GpuWork work, bool from_graph);
  void Dispatch(const GpuWork& work);
  void Analyze(ClosedStep step, std::vector<StepResult>& into);
  // Each phase's share of a step: the step's work launched inside the
  // phase's ranges, over the part of the window it spans.
  std::vector<std::pair<std::string, SegmentTimes>> PhasesOf(const ClosedStep& step,
                                                             const StepContext& context) const;

  NameLookup name_of_;
  const StepPatterns& patterns_;
  ProcessSteps result_;
  std::unordered_map<uint64_t, KernelInfo> kernels_by_iid_;
  std::unordered_map<uint64_t, ApiInfo> apis_by_iid_;
  std::unordered_map<uint64_t, RangeKind> range_kinds_by_iid_;
  std::map<uint64_t, bool> nccl_domain_;              // by domain iid
  std::map<uint32_t, int64_t> launches_;              // correlation id → API call start
  std::multimap<uint32_t, GpuWork> unlaunched_;       // work whose API record is still to come
  std::map<uint32_t, uint64_t> call_of_correlation_;  // ExternalCorrelation
  std::map<uint64_t, NcclCall> calls_;                // by call_id
  // NVTX phase ranges, latest last; the steps still open need the recent ones.
  std::deque<PhaseRange> phase_ranges_;
  bool any_backward_ = false;
  NvtxStepCollector nvtx_;
  OptimizerStepCollector inferred_;
};

}  // namespace vprof::reporter
