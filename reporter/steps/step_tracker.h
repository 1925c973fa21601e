// The step analysis of one process as its trace streams past: NVTX step and
// backward ranges, GPU records (kernels, copies, the API calls that launched
// them, their links to NCCL calls) and NCCL calls go in; one StepResult per
// step comes out, folded into a StepStore at once, both for the NVTX steps and the inferred ones
// (nvtx_step_collector.h, optimizer_step_collector.h say when a step is
// closed). Between the records and the collectors, what is in flight is kept
// in capped tables: a launch until its GPU work arrives, GPU work until its
// launch record arrives, NCCL calls and correlations for the steps still open.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory_resource>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>

#include "reporter/base/in_flight_table.h"
#include "reporter/base/trimmed_vector.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/gpu/gpu_record.h"
#include "reporter/steps/deep_window_set.h"
#include "reporter/steps/nvtx_step_collector.h"
#include "reporter/steps/optimizer_step_collector.h"
#include "reporter/steps/step_patterns.h"
#include "reporter/steps/step_segments.h"
#include "reporter/steps/step_store.h"
#include "reporter/trace/gpu_batch_records.h"
#include "reporter/trace/iid_table.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

class StepTracker {
 public:
  using NameLookup = std::function<std::string(uint64_t iid)>;

  StepTracker(NameLookup name_of, const StepPatterns& patterns);

  void AddEnvironment(const vprof::trace::RunHeader& header);
  void AddNvtxBatch(const vprof::trace::NvtxBatch& batch);
  void AddGpuBatch(const GpuBatchRecords& batch);
  void AddNcclCall(const vprof::trace::NcclEvent& event, NcclFunction function);
  void AddDeepWindow(const vprof::trace::DeepWindow& window);
  // How much GPU work the open NVTX steps may hold (HeldWorksPerProcess),
  // and as many NCCL calls: a step's calls are no more than its work, and a
  // call is needed only until its step closes.
  // Phase ranges are held to as many: those of the open steps are needed.
  void LimitHeldWorks(size_t works) {
    nvtx_.LimitHeldWorks(works);
    calls_.LimitTo(std::min(kMaxInFlight, works));
    max_phase_ranges_ = std::max(kMinPhaseRanges, works);
  }
  // How many of the first steps keep their detail (StepStore): the warmup
  // plus kDetailedStepsPastWarmup.
  void KeepDetailOfFirst(uint32_t steps) {
    result_.nvtx.KeepDetailOfFirst(steps);
    result_.inferred.KeepDetailOfFirst(steps);
  }
  // Which steps keep their work for the replay: `steps` from index `first`
  // on, `max_works` pieces in all (step_store.h's kReplaySteps).
  void KeepReplayOf(uint32_t first, uint32_t steps, size_t max_works) {
    replay_first_ = first;
    replay_steps_ = steps;
    replay_budget_ = max_works;
  }

  // Closes the steps still open; the result is final.
  ProcessSteps Finish();

  // Kernels launched from another thread than the main one (the thread that
  // launched the first kernel whose launch record was read), by kernel name:
  // PyTorch runs backward on its autograd device thread (inferred_phase.h).
  std::map<std::string, ActivityTotals> OffMainThreadKernels() const;
  // Main-thread kernels of forward-only passes (logprob), by kernel name:
  // those a step launched before its first training forward. That forward
  // is found by its kernels: the same sequence, by name, as the step's next
  // forward (the main-thread run between its first two backward runs).
  // None in a step with fewer than two backward runs, or whose first forward
  // does not match its second: no guess.
  std::map<std::string, ActivityTotals> ForwardOnlyKernels() const;

 private:
  // Each table holds at most this many entries, the oldest dropped first:
  // entries never matched (dropped records) must not pile up.
  static constexpr size_t kMaxInFlight = size_t{1} << 16;
  // A phase range is needed until the steps around it close: ranges are
  // forgotten as steps close (ForgetPhaseRangesBefore), and beyond the cap
  // (max_phase_ranges_, 32 B each) the oldest go. The cap is the held-work
  // limit, so that every step the collector may hold open keeps its ranges,
  // but never below this many.
  static constexpr size_t kMinPhaseRanges = 1024;

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
    uint64_t seq = 0;  // a collective called outside a group; else 0
  };
  enum class RangeRole : uint8_t { kNone, kStep, kPhase };
  struct RangeKind {
    RangeRole role = RangeRole::kNone;
    std::string_view phase;               // kPhase: the phase (phase_rules.h), static storage
    std::optional<uint32_t> step_number;  // kStep: the number its name ends with
  };
  struct PhaseRange {
    std::string_view phase;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  using PhaseRanges = TrimmedVector<PhaseRange>;

  const KernelInfo& KernelNamed(uint64_t name_iid);
  const ApiInfo& ApiNamed(uint64_t name_iid);
  RangeKind KindOf(const vprof::trace::NvtxRange& range);
  void AddWork(GpuWork work, bool from_graph);
  void Dispatch(const GpuWork& work);
  void DropInferredOnceNvtxSteps();
  using KernelTotals = IidTable<ActivityTotals>;  // by kernel name iid
  void Analyze(ClosedStep& step, StepStore& into, KernelTotals& forward_only);
  // Under a deep schedule: false (the step counted as shallow in `store`)
  // for a step no deep window held whole.
  bool InDeepWindow(const ClosedStep& step, StepStore& store);
  // Also sets training_forward_from_ns_ when it finds forward-only passes.
  void CountForwardOnlyPasses(const ClosedStep& step, KernelTotals& into);
  std::map<std::string, ActivityTotals> ByName(const KernelTotals& kernels) const;
  // The phase ranges that may overlap [start_ns, end_ns]: those starting
  // from start_ns minus the longest range's length up to end_ns. The caller
  // checks each one's end.
  std::pair<PhaseRanges::const_iterator, PhaseRanges::const_iterator> PhaseRangesNear(
      int64_t start_ns, int64_t end_ns) const;
  // Each phase's share of a step: the step's work launched inside the
  // phase's ranges, over the part of the window it spans.
  std::vector<std::pair<std::string, SegmentTimes>> PhasesOf(const ClosedStep& step,
                                                             const StepContext& context);
  // The step's phase spans (PhaseSpan): of its NVTX phases, or when it has
  // none, inferred from the threads and kernels of its work.
  std::vector<PhaseSpan> NvtxPhaseSpans(const ClosedStep& step) const;
  // Backward: the compute launched from threads other than the main one
  // (inferred_phase.h). Forward: the main thread's compute launched before
  // backward's last launch, so that with gradient accumulation it spans every
  // micro-batch's forward, as backward spans every backward; of it, what came
  // before the step's first training forward (CountForwardOnlyPasses) is
  // logprob. Optimizer: the optimizer kernels. None without a main thread;
  // forward and backward none when no compute came from another thread (no
  // backward to tell them apart).
  std::vector<PhaseSpan> InferredPhaseSpans(const ClosedStep& step) const;
  // The phase of each work's launch into work_phase_, as indexes into
  // phase_table (its [0] is no phase): the innermost NVTX phase range
  // holding the launch, or without NVTX phases the inferred phase of the
  // work itself by the rules of InferredPhaseSpans.
  void WorkPhases(const ClosedStep& step, std::vector<std::string_view>& phase_table);
  // Steps close in start order, so once a step starting at `start_ns` is
  // analyzed, no later step needs a range that ended before then.
  void ForgetPhaseRangesBefore(int64_t start_ns);

  NameLookup name_of_;
  const StepPatterns& patterns_;
  ProcessSteps result_;
  IidTable<KernelInfo> kernels_by_iid_;
  IidTable<ApiInfo> apis_by_iid_;
  IidTable<RangeKind> range_kinds_by_iid_;
  std::map<uint64_t, bool> nccl_domain_;  // by domain iid
  // CUDA graphs whose node lists (GpuGraphNodes) hold optimizer kernels, by
  // graph id and by executable graph id.
  std::unordered_set<uint32_t> graphs_running_optimizer_;
  struct Launch {
    int64_t start_ns = 0;
    uint32_t tid = 0;
  };
  InFlightTable<Launch> launches_{kMaxInFlight};  // by correlation id
  // Work whose API record is still to come (rare: API records are mostly
  // read first). Its nodes come from a pool, not from malloc one by one.
  std::pmr::unsynchronized_pool_resource unlaunched_pool_;
  std::pmr::multimap<uint32_t, GpuWork> unlaunched_{&unlaunched_pool_};
  InFlightTable<uint64_t> call_of_correlation_{kMaxInFlight};  // ExternalCorrelation
  InFlightTable<NcclCall> calls_{kMaxInFlight};                // by call_id
  // NVTX phase ranges by start; the steps still open need the recent ones.
  // Sorted, so that a step looks only at those near it, not at all of them.
  PhaseRanges phase_ranges_{kMinPhaseRanges / 4};
  size_t max_phase_ranges_ = NvtxStepCollector::kMaxHeldWorks;
  int64_t longest_phase_range_ns_ = 0;
  // The latest end of a range dropped at the cap: a step starting no later
  // may have lost phases to it.
  int64_t dropped_phase_ranges_until_ns_ = INT64_MIN;
  // PhasesOf's, kept from step to step.
  std::vector<GpuWork> phase_works_;
  std::vector<uint64_t> work_phases_;
  std::vector<std::string_view> phase_names_;
  std::vector<std::pair<size_t, const PhaseRange*>> step_phase_ranges_;  // (name index, range)
  bool any_backward_ = false;
  NvtxStepCollector nvtx_;
  OptimizerStepCollector inferred_;
  std::optional<uint32_t> main_tid_;
  KernelTotals off_main_by_iid_;
  bool any_off_main_compute_ = false;
  // Of the NVTX steps and of the inferred ones: only one kind is reported.
  KernelTotals forward_only_nvtx_;
  KernelTotals forward_only_inferred_;
  std::vector<const GpuWork*> pass_works_;  // CountForwardOnlyPasses's, kept
  // Analyze's, per work of the step being analyzed, kept.
  std::vector<PhaseIndex> work_phase_;
  std::vector<uint64_t> work_seq_;
  // KeepReplayOf's; what is left of the budget is spent as steps are kept.
  uint32_t replay_first_ = 0;
  uint32_t replay_steps_ = 0;
  size_t replay_budget_ = 0;
  // The step's work as the replay keeps it, when `into` is to keep it.
  std::vector<ReplayWork> ReplayOf(const ClosedStep& step, const StepStore& into);
  // The launch of the step being analyzed's first training forward work, when
  // CountForwardOnlyPasses found forward-only passes before it.
  std::optional<int64_t> training_forward_from_ns_;
  bool any_phase_range_ = false;  // an NVTX phase range was read
  DeepWindowSet deep_windows_;
  // Set once the process has an NVTX step: its inferred steps would never be
  // reported (BuildStepsReport), so they are neither analyzed nor kept.
  bool inferred_dropped_ = false;
};

}  // namespace vprof::reporter
