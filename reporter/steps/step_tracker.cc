#include "reporter/steps/step_tracker.h"

#include <algorithm>

#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/export_names.h"
#include "reporter/gpu/kernel_class.h"
#include "reporter/gpu/nccl_kernel_linker.h"
#include "reporter/phases/inferred_phase.h"
#include "reporter/phases/phase_rules.h"
#include "reporter/steps/step_segments.h"

namespace vprof::reporter {
namespace {

// CUDA_DEVICE_MAX_CONNECTIONS=1: one hardware work queue per device, so work
// of different streams runs in launch order and cannot overlap freely.
constexpr std::string_view kMaxConnections = "CUDA_DEVICE_MAX_CONNECTIONS";

NcclFunction FunctionInKernelName(std::string_view name, std::string_view kernel_class) {
  if (kernel_class == kCustomAllReduceKernelClass) return NcclFunction::kAllReduce;
  if (name.find("AllReduce") != std::string_view::npos) return NcclFunction::kAllReduce;
  if (name.find("ReduceScatter") != std::string_view::npos) return NcclFunction::kReduceScatter;
  if (name.find("AllGather") != std::string_view::npos) return NcclFunction::kAllGather;
  return NcclFunction::kUnknown;
}

int64_t Signed(uint64_t ns) { return static_cast<int64_t>(ns); }
uint64_t Unsigned(int64_t ns) { return ns > 0 ? static_cast<uint64_t>(ns) : 0; }

}  // namespace

StepTracker::StepTracker(NameLookup name_of, const StepPatterns& patterns)
    : name_of_(std::move(name_of)),
      patterns_(patterns),
      nvtx_([this](ClosedStep& step) {
        if (InDeepWindow(step, result_.nvtx)) Analyze(step, result_.nvtx, forward_only_nvtx_);
        ForgetPhaseRangesBefore(step.range_start_ns);
      }),
      // Inferred steps are analyzed only while no NVTX step was read (then
      // they are dropped), so ranges they let go of are needed by no NVTX
      // step read so far; one whose range is read later may lose phases.
      inferred_([this](ClosedStep& step) {
        if (!result_.first_graph_step_ns && !step.works.empty() && step.works.back().whole_graph) {
          result_.first_graph_step_ns = step.range_start_ns;
        }
        if (InDeepWindow(step, result_.inferred)) {
          Analyze(step, result_.inferred, forward_only_inferred_);
        }
        ForgetPhaseRangesBefore(step.range_start_ns);
      }) {}

void StepTracker::AddEnvironment(const vprof::trace::RunHeader& header) {
  const std::string& deep = header.settings().deep_capture();
  result_.deep_schedule = deep == "always" ? "" : deep;
  for (const auto& variable : header.env()) {
    if (!variable.redacted() && variable.name() == kMaxConnections) {
      result_.max_connections_one = variable.value() == "1";
    }
  }
}

namespace {

// The number a step range's name ends with ("train_step 7", "ProfilerStep#7"),
// when it fits 32 bits.
std::optional<uint32_t> TrailingNumber(std::string_view name) {
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  const std::string_view number = name.substr(digits);
  if (number.empty() || number.size() > 9) return std::nullopt;
  uint32_t value = 0;
  for (const char digit : number) value = value * 10 + static_cast<uint32_t>(digit - '0');
  return value;
}

}  // namespace

StepTracker::RangeKind StepTracker::KindOf(const vprof::trace::NvtxRange& range) {
  if (range.kind() == vprof::trace::NVTX_KIND_MARK) return {};
  const uint64_t domain = range.domain_iid();
  auto [is_nccl, inserted] = nccl_domain_.try_emplace(domain, false);
  if (inserted) is_nccl->second = domain != 0 && name_of_(domain) == kNcclNvtxDomain;
  if (is_nccl->second) return {};
  auto [kind, new_name] = range_kinds_by_iid_.try_emplace(range.name_iid());
  if (new_name) {
    const std::string name = name_of_(range.name_iid());
    if (patterns_.Matches(name)) {
      kind.role = RangeRole::kStep;
      kind.step_number = TrailingNumber(name);
    } else if (const auto rule = MatchPhaseRule(name)) {
      kind = {RangeRole::kPhase, rule->phase, std::nullopt};
    }
  }
  return kind;
}

void StepTracker::AddNvtxBatch(const vprof::trace::NvtxBatch& batch) {
  for (const auto& range : batch.range()) {
    const RangeKind kind = KindOf(range);
    if (kind.role == RangeRole::kStep) {
      nvtx_.AddRange(Signed(range.start_ns()), Signed(range.end_ns()), kind.step_number);
    } else if (kind.role == RangeRole::kPhase) {
      if (kind.phase == kBackwardPhase) any_backward_ = true;
      any_phase_range_ = true;
      const PhaseRange added{kind.phase, Signed(range.start_ns()), Signed(range.end_ns())};
      // Ranges come in end order per thread: nearly always the latest start.
      auto at = phase_ranges_.end();
      while (at != phase_ranges_.begin() && std::prev(at)->start_ns > added.start_ns) --at;
      phase_ranges_.insert(at, added);
      longest_phase_range_ns_ = std::max(longest_phase_range_ns_, added.end_ns - added.start_ns);
      if (phase_ranges_.size() > max_phase_ranges_) {
        dropped_phase_ranges_until_ns_ =
            std::max(dropped_phase_ranges_until_ns_, phase_ranges_.front().end_ns);
        phase_ranges_.pop_front();
      }
    }
  }
}

// As in GpuActivityReader: correlations first, then the API calls, then the
// work that refers to both.
void StepTracker::AddGpuBatch(const GpuBatchRecords& batch) {
  // A graph's node list comes before the records of its replays.
  for (const vprof::trace::GpuGraphNodes& graph : batch.others.graph_nodes()) {
    bool optimizer = false;
    for (const vprof::trace::GraphKernelNodes& kernel : graph.kernel()) {
      optimizer = optimizer || KernelNamed(kernel.name_iid()).optimizer;
    }
    if (!optimizer) continue;
    // A replay names its graph by one of the two ids (CUPTI's documentation does not say which).
    graphs_running_optimizer_.insert(graph.graph_id());
    graphs_running_optimizer_.insert(graph.graph_exec_id());
  }
  for (const ExternalRow& external : batch.externals) {
    if (external.external_id != 0) {
      call_of_correlation_.Put(external.correlation_id, external.external_id);
    }
  }
  for (const ApiRow& api : batch.apis) {
    const ApiInfo& info = ApiNamed(api.name_iid);
    if (info.profiler_start && !result_.profiler_start_ns) {
      result_.profiler_start_ns = Signed(api.start_ns);
    }
    if (!info.launches_work || api.correlation_id == 0) continue;
    const auto waiting = unlaunched_.equal_range(api.correlation_id);
    if (waiting.first == waiting.second) {
      launches_.Put(api.correlation_id, {Signed(api.start_ns), api.tid});
      continue;
    }
    std::vector<GpuWork> ready;
    for (auto it = waiting.first; it != waiting.second; ++it) ready.push_back(it->second);
    unlaunched_.erase(waiting.first, waiting.second);
    for (GpuWork& work : ready) {
      work.launch_ns = Signed(api.start_ns);
      work.tid = api.tid;
      Dispatch(work);
    }
  }

  for (const KernelRow& kernel : batch.kernels) {
    result_.any_kernels = true;
    const KernelInfo& info = KernelNamed(kernel.name_iid);
    GpuWork work;
    work.start_ns = Signed(kernel.start_ns);
    work.end_ns = Signed(kernel.start_ns + kernel.duration_ns);
    work.stream = kernel.stream;
    work.correlation_id = kernel.correlation_id;
    work.kind = info.kind;
    work.optimizer = info.optimizer;
    work.name_iid = kernel.name_iid;
    work.function = info.named_function;
    AddWork(work, kernel.graph_id != 0);
  }
  const auto add_copy = [this](const CopyRow& copy) {
    GpuWork work;
    work.start_ns = Signed(copy.start_ns);
    work.end_ns = Signed(copy.start_ns + copy.duration_ns);
    work.stream = copy.stream;
    work.correlation_id = copy.correlation_id;
    work.kind = WorkKind::kCopy;
    AddWork(work, copy.graph_id != 0);
  };
  for (const CopyRow& copy : batch.memcpys) add_copy(copy);
  for (const CopyRow& set : batch.memsets) add_copy(set);
  // The replay is compute work, one per launch; a graph whose node list
  // holds optimizer kernels ends a step with each replay.
  for (const GraphReplayRow& replay : batch.graph_replays) {
    if (!replay.timed()) continue;
    // A replay ran kernels, though none is recorded.
    result_.any_kernels = true;
    GpuWork work;
    work.start_ns = Signed(replay.start_ns);
    work.end_ns = Signed(replay.start_ns + replay.duration_ns);
    work.stream = replay.stream;
    work.correlation_id = replay.correlation_id;
    work.whole_graph = true;
    work.optimizer = replay.graph_id != 0 && graphs_running_optimizer_.contains(replay.graph_id);
    AddWork(work, false);
  }
}

void StepTracker::AddNcclCall(const vprof::trace::NcclEvent& event, NcclFunction function) {
  if (event.call_id() == 0) return;
  // Only a collective called outside a group has a seq of its own; a
  // group's collectives launch their kernels from its ncclGroupEnd.
  const bool own_seq = RoleOf(function) == FunctionRole::kCollective && event.group_depth() == 0;
  calls_.Put(event.call_id(),
             {function, event.comm_id(), event.bytes(), own_seq ? event.seq() : uint64_t{0}});
}

void StepTracker::AddWork(GpuWork work, bool from_graph) {
  work.from_graph = from_graph;
  if (const uint64_t* call = call_of_correlation_.Find(work.correlation_id)) {
    work.call_id = *call;
    if (!from_graph) call_of_correlation_.Erase(work.correlation_id);
  }
  const Launch* launch = launches_.Find(work.correlation_id);
  if (!launch) {
    // Its API record is still to come (or was lost: it stays until pushed out).
    unlaunched_.emplace(work.correlation_id, work);
    while (unlaunched_.size() > kMaxInFlight) {
      unlaunched_.erase(unlaunched_.begin());
      ++result_.unlaunched_records;
    }
    return;
  }
  work.launch_ns = launch->start_ns;
  work.tid = launch->tid;
  // One graph launch starts many kernels under its correlation id.
  if (!from_graph) launches_.Erase(work.correlation_id);
  Dispatch(work);
}

void StepTracker::Dispatch(const GpuWork& work) {
  if (work.kind != WorkKind::kCopy) {
    if (!main_tid_) main_tid_ = work.tid;
    // A replay recorded whole has no kernel name to be counted under.
    if (work.tid != *main_tid_ && !work.whole_graph) {
      off_main_by_iid_.try_emplace(work.name_iid)
          .first.Add(0, Unsigned(work.end_ns - work.start_ns));
      any_off_main_compute_ |= work.kind == WorkKind::kCompute && !work.optimizer;
    }
  }
  nvtx_.AddWork(work);
  DropInferredOnceNvtxSteps();
  if (!inferred_dropped_) inferred_.AddWork(work);
}

std::pair<StepTracker::PhaseRanges::const_iterator, StepTracker::PhaseRanges::const_iterator>
StepTracker::PhaseRangesNear(int64_t start_ns, int64_t end_ns) const {
  const auto starts_before = [](const PhaseRange& range, int64_t at) {
    return range.start_ns < at;
  };
  const auto first = std::lower_bound(phase_ranges_.begin(), phase_ranges_.end(),
                                      start_ns - longest_phase_range_ns_, starts_before);
  const auto last =
      std::upper_bound(first, phase_ranges_.end(), end_ns,
                       [](int64_t at, const PhaseRange& range) { return at < range.start_ns; });
  return {first, last};
}

void StepTracker::ForgetPhaseRangesBefore(int64_t start_ns) {
  // Sorted by start: a long range at the front holds those behind it until
  // it ends (or the cap takes it).
  while (!phase_ranges_.empty() && phase_ranges_.front().end_ns < start_ns) {
    phase_ranges_.pop_front();
  }
}

void StepTracker::DropInferredOnceNvtxSteps() {
  if (inferred_dropped_ || !nvtx_.any_steps()) return;
  inferred_dropped_ = true;
  inferred_.Drop();
  result_.inferred = StepStore();
  forward_only_inferred_ = KernelTotals();
}

void StepTracker::AddDeepWindow(const vprof::trace::DeepWindow& window) {
  deep_windows_.Add(window);
  result_.deep_windows = static_cast<uint32_t>(deep_windows_.size());
}

bool StepTracker::InDeepWindow(const ClosedStep& step, StepStore& store) {
  if (result_.deep_schedule.empty()) return true;
  const bool deep = deep_windows_.Holds(step.range_start_ns, step.range_end_ns);
  if (&store == &result_.nvtx) {
    (deep ? result_.deep_step_ns : result_.shallow_step_ns)
        .Add(step.range_end_ns - step.range_start_ns);
  }
  if (!deep) store.CountShallow();
  return deep;
}

void StepTracker::Analyze(ClosedStep& step, StepStore& into, KernelTotals& forward_only) {
  training_forward_from_ns_.reset();
  if (any_off_main_compute_) CountForwardOnlyPasses(step, forward_only);
  work_seq_.assign(step.works.size(), 0);
  for (size_t i = 0; i < step.works.size(); ++i) {
    GpuWork& work = step.works[i];
    if (work.kind != WorkKind::kComm || work.call_id == 0) continue;
    const NcclCall* call = calls_.Find(work.call_id);
    if (!call) continue;
    work.function = call->function;
    work.comm_id = call->comm_id;
    work.bytes = call->bytes;
    work_seq_[i] = call->seq;
  }
  // A call's kernels run in the step that launched them: once it is
  // analyzed, its calls are done with (a graph replay's kernels included).
  for (const GpuWork& work : step.works) {
    if (work.kind == WorkKind::kComm && work.call_id != 0) calls_.Erase(work.call_id);
  }
  StepContext context;
  context.max_connections_one = result_.max_connections_one;
  context.has_backward_phase = any_backward_;
  const auto [first, last] = PhaseRangesNear(step.range_start_ns, step.range_end_ns);
  for (auto range = first; range != last; ++range) {
    if (range->phase == kBackwardPhase && range->end_ns >= step.range_start_ns) {
      context.backward.emplace_back(range->start_ns, range->end_ns);
    }
  }
  auto phases = PhasesOf(step, context);
  std::vector<std::string_view> phase_table;
  WorkPhases(step, phase_table);
  context.work_phase = work_phase_;
  context.work_seq = work_seq_;
  StepResult result = AnalyzeStep(step.range_start_ns, step.window_start_ns, step.window_end_ns,
                                  step.works, context);
  result.phase_table = std::move(phase_table);
  result.number = step.number;
  result.replay = ReplayOf(step, into);
  result.phases = std::move(phases);
  result.phase_ranges_missing = step.range_start_ns <= dropped_phase_ranges_until_ns_;
  // A process with NVTX phases keeps to them, even in a step whose ranges
  // were dropped for room (phase_ranges_missing says so).
  result.phase_spans = any_phase_range_ ? NvtxPhaseSpans(step) : InferredPhaseSpans(step);
  into.Add(std::move(result));
}

std::vector<PhaseSpan> StepTracker::NvtxPhaseSpans(const ClosedStep& step) const {
  std::vector<PhaseSpan> spans;
  const auto [first, last] = PhaseRangesNear(step.range_start_ns, step.range_end_ns);
  for (auto range = first; range != last; ++range) {
    const int64_t start = std::max(range->start_ns, step.range_start_ns);
    const int64_t end = std::min(range->end_ns, step.range_end_ns);
    if (end < start) continue;
    const auto span = std::find_if(spans.begin(), spans.end(),
                                   [&](const PhaseSpan& s) { return s.phase == range->phase; });
    if (span == spans.end()) {
      spans.push_back({range->phase, true, start, end});
    } else {
      span->start_ns = std::min(span->start_ns, start);
      span->end_ns = std::max(span->end_ns, end);
    }
  }
  std::sort(spans.begin(), spans.end(),
            [](const PhaseSpan& a, const PhaseSpan& b) { return a.phase < b.phase; });
  return spans;
}

std::vector<PhaseSpan> StepTracker::InferredPhaseSpans(const ClosedStep& step) const {
  if (!main_tid_) return {};
  struct Launches {
    int64_t first = INT64_MAX;
    int64_t last = INT64_MIN;
    void Add(int64_t at) {
      first = std::min(first, at);
      last = std::max(last, at);
    }
    bool empty() const { return first > last; }
  };
  Launches backward;
  Launches forward;
  Launches logprob;
  Launches optimizer;
  Launches graph_replays;
  const auto training_compute = [](const GpuWork& work) {
    return work.kind == WorkKind::kCompute && !work.optimizer && !work.whole_graph;
  };
  for (const GpuWork& work : step.works) {
    if (work.whole_graph) {
      graph_replays.Add(work.launch_ns);
      continue;
    }
    if (work.kind == WorkKind::kCompute && work.optimizer) optimizer.Add(work.launch_ns);
    if (training_compute(work) && work.tid != *main_tid_) backward.Add(work.launch_ns);
  }
  for (const GpuWork& work : step.works) {
    if (!training_compute(work) || work.tid != *main_tid_ || work.launch_ns >= backward.last) {
      continue;
    }
    const bool forward_only =
        training_forward_from_ns_ && work.launch_ns < *training_forward_from_ns_;
    (forward_only ? logprob : forward).Add(work.launch_ns);
  }
  std::vector<PhaseSpan> spans;  // in name order
  const std::pair<std::string_view, Launches> inferred[] = {{kBackwardPhase, backward},
                                                            {kGraphReplayPhase, graph_replays},
                                                            {kForwardPhase, forward},
                                                            {kLogprobPhase, logprob},
                                                            {kOptimizerPhase, optimizer}};
  for (const auto& [phase, launches] : inferred) {
    if (!launches.empty()) spans.push_back({phase, false, launches.first, launches.last});
  }
  return spans;
}

std::vector<ReplayWork> StepTracker::ReplayOf(const ClosedStep& step, const StepStore& into) {
  const size_t index = into.size();
  if (index < replay_first_ || index >= replay_first_ + replay_steps_ ||
      step.works.size() > replay_budget_) {
    return {};
  }
  replay_budget_ -= step.works.size();
  std::vector<ReplayWork> works;
  works.reserve(step.works.size());
  for (size_t i = 0; i < step.works.size(); ++i) {
    const GpuWork& work = step.works[i];
    ReplayWork& kept = works.emplace_back();
    kept.launch_ns = work.launch_ns;
    kept.start_ns = work.start_ns;
    kept.end_ns = work.end_ns;
    kept.comm_id = work.comm_id;
    kept.seq = work_seq_[i];
    kept.name = work.name_iid;
    kept.stream = work.stream;
    kept.tid = work.tid;
    kept.phase = work_phase_[i];
    kept.kind = work.kind;
    kept.function = work.function;
    kept.optimizer = work.optimizer;
    kept.whole_graph = work.whole_graph;
    kept.from_graph = work.from_graph;
  }
  // Launch order: the host's, which the replay follows.
  std::stable_sort(works.begin(), works.end(), [](const ReplayWork& a, const ReplayWork& b) {
    return a.launch_ns < b.launch_ns;
  });
  return works;
}

void StepTracker::WorkPhases(const ClosedStep& step, std::vector<std::string_view>& phase_table) {
  phase_table.assign(1, std::string_view());
  work_phase_.assign(step.works.size(), 0);
  const auto index_of = [&](std::string_view phase) {
    auto name = std::find(phase_table.begin(), phase_table.end(), phase);
    if (name == phase_table.end()) name = phase_table.insert(name, phase);
    return static_cast<PhaseIndex>(name - phase_table.begin());
  };
  if (any_phase_range_) {
    const auto [first, last] = PhaseRangesNear(step.range_start_ns, step.range_end_ns);
    for (size_t i = 0; i < step.works.size(); ++i) {
      const int64_t launch = step.works[i].launch_ns;
      const PhaseRange* innermost = nullptr;
      for (auto range = first; range != last; ++range) {
        if (launch < range->start_ns || launch > range->end_ns) continue;
        if (!innermost ||
            range->end_ns - range->start_ns < innermost->end_ns - innermost->start_ns) {
          innermost = &*range;
        }
      }
      if (innermost) work_phase_[i] = index_of(innermost->phase);
    }
    return;
  }
  if (!main_tid_) return;
  const auto training_compute = [](const GpuWork& work) {
    return work.kind == WorkKind::kCompute && !work.optimizer && !work.whole_graph;
  };
  int64_t last_backward = INT64_MIN;
  for (const GpuWork& work : step.works) {
    if (training_compute(work) && work.tid != *main_tid_) {
      last_backward = std::max(last_backward, work.launch_ns);
    }
  }
  for (size_t i = 0; i < step.works.size(); ++i) {
    const GpuWork& work = step.works[i];
    if (work.kind == WorkKind::kCopy) continue;
    if (work.whole_graph) {
      work_phase_[i] = index_of(kGraphReplayPhase);
    } else if (work.optimizer) {
      work_phase_[i] = index_of(kOptimizerPhase);
    } else if (last_backward == INT64_MIN) {
      continue;  // no backward to tell forward from
    } else if (work.tid != *main_tid_) {
      work_phase_[i] = index_of(kBackwardPhase);
    } else if (work.kind == WorkKind::kCompute && work.launch_ns < last_backward) {
      const bool forward_only =
          training_forward_from_ns_ && work.launch_ns < *training_forward_from_ns_;
      work_phase_[i] = index_of(forward_only ? kLogprobPhase : kForwardPhase);
    }
  }
}

std::vector<std::pair<std::string, SegmentTimes>> StepTracker::PhasesOf(
    const ClosedStep& step, const StepContext& context) {
  const auto [first, last] = PhaseRangesNear(step.range_start_ns, step.range_end_ns);
  // The ranges that reach into the step, and their phases in name order.
  std::vector<std::string_view>& names = phase_names_;
  std::vector<std::pair<size_t, const PhaseRange*>>& ranges = step_phase_ranges_;
  names.clear();
  ranges.clear();
  for (auto range = first; range != last; ++range) {
    if (range->end_ns < step.range_start_ns) continue;
    ranges.emplace_back(0, &*range);
    if (std::find(names.begin(), names.end(), range->phase) == names.end()) {
      names.push_back(range->phase);
    }
  }
  std::sort(names.begin(), names.end());
  for (auto& [name, range] : ranges) {
    name = static_cast<size_t>(std::lower_bound(names.begin(), names.end(), range->phase) -
                               names.begin());
  }
  std::vector<std::pair<std::string, SegmentTimes>> phases;
  phases.reserve(names.size());
  // Each work's phases as bits, 64 names at a time: one pass over the
  // works and ranges for (nearly always) every phase of the step. A work
  // launched in two ranges of one phase counts once.
  for (size_t first_name = 0; first_name < names.size(); first_name += 64) {
    const size_t end_name = std::min(names.size(), first_name + 64);
    work_phases_.assign(step.works.size(), 0);
    for (const auto& [name, range] : ranges) {
      if (name < first_name || name >= end_name) continue;
      const uint64_t bit = uint64_t{1} << (name - first_name);
      for (size_t i = 0; i < step.works.size(); ++i) {
        const int64_t launch = step.works[i].launch_ns;
        if (launch >= range->start_ns && launch <= range->end_ns) work_phases_[i] |= bit;
      }
    }
    for (size_t name = first_name; name < end_name; ++name) {
      const uint64_t bit = uint64_t{1} << (name - first_name);
      phase_works_.clear();
      int64_t start = INT64_MAX;
      int64_t end = INT64_MIN;
      for (size_t i = 0; i < step.works.size(); ++i) {
        if (!(work_phases_[i] & bit)) continue;
        const GpuWork& work = step.works[i];
        phase_works_.push_back(work);
        start = std::min(start, work.start_ns);
        end = std::max(end, work.end_ns);
      }
      if (phase_works_.empty()) continue;
      start = std::max(start, step.window_start_ns);
      end = std::min(end, step.window_end_ns);
      if (end <= start) continue;
      phases.emplace_back(std::string(names[name]),
                          AnalyzeStep(step.range_start_ns, start, end, phase_works_, context,
                                      StepAnalysis::kTimesOnly)
                              .times);
    }
  }
  return phases;
}

ProcessSteps StepTracker::Finish() {
  result_.unlaunched_records += unlaunched_.size();
  unlaunched_.clear();
  nvtx_.Finish();
  DropInferredOnceNvtxSteps();
  if (!inferred_dropped_) inferred_.Finish();
  result_.late_records = nvtx_.late_records();
  result_.nvtx.NameSpans(name_of_);
  result_.inferred.NameSpans(name_of_);
  return std::move(result_);
}

void StepTracker::CountForwardOnlyPasses(const ClosedStep& step, KernelTotals& into) {
  // The step's compute in launch order (CUPTI's correlation ids grow with
  // every API call), optimizer kernels aside.
  pass_works_.clear();
  for (const GpuWork& work : step.works) {
    if (work.kind == WorkKind::kCompute && !work.optimizer) pass_works_.push_back(&work);
  }
  std::sort(pass_works_.begin(), pass_works_.end(), [](const GpuWork* a, const GpuWork* b) {
    return a->correlation_id < b->correlation_id;
  });
  const auto on_main = [&](const GpuWork* work) { return work->tid == *main_tid_; };
  const auto first_backward = std::find_if_not(pass_works_.begin(), pass_works_.end(), on_main);
  const auto second_forward = std::find_if(first_backward, pass_works_.end(), on_main);
  const auto second_backward = std::find_if_not(second_forward, pass_works_.end(), on_main);
  if (second_backward == pass_works_.end()) return;  // fewer than two backward runs
  const auto forward_kernels = second_backward - second_forward;
  if (first_backward - pass_works_.begin() <= forward_kernels) return;  // nothing before it
  const auto forward_only_end = first_backward - forward_kernels;
  if (!std::equal(forward_only_end, first_backward, second_forward, second_backward,
                  [](const GpuWork* a, const GpuWork* b) { return a->name_iid == b->name_iid; })) {
    return;
  }
  training_forward_from_ns_ = (*forward_only_end)->launch_ns;
  for (auto work = pass_works_.begin(); work != forward_only_end; ++work) {
    into.try_emplace((*work)->name_iid).first.Add(0, Unsigned((*work)->end_ns - (*work)->start_ns));
  }
}

std::map<std::string, ActivityTotals> StepTracker::ByName(const KernelTotals& kernels) const {
  std::map<std::string, ActivityTotals> named;
  kernels.ForEach([&](uint64_t iid, const ActivityTotals& totals) {
    ActivityTotals& sum = named[name_of_(iid)];
    sum.count += totals.count;
    sum.total_ns += totals.total_ns;
  });
  return named;
}

std::map<std::string, ActivityTotals> StepTracker::OffMainThreadKernels() const {
  return ByName(off_main_by_iid_);
}

std::map<std::string, ActivityTotals> StepTracker::ForwardOnlyKernels() const {
  return ByName(inferred_dropped_ ? forward_only_nvtx_ : forward_only_inferred_);
}

const StepTracker::KernelInfo& StepTracker::KernelNamed(uint64_t name_iid) {
  auto [kernel, inserted] = kernels_by_iid_.try_emplace(name_iid);
  if (inserted) {
    const std::string name = name_of_(name_iid);
    const std::string_view kernel_class = KernelClassOf(name);
    const bool comm =
        kernel_class == kNcclKernelClass || kernel_class == kCustomAllReduceKernelClass;
    kernel.kind = comm ? WorkKind::kComm : WorkKind::kCompute;
    kernel.optimizer = kernel_class == kOptimizerKernelClass;
    if (comm) kernel.named_function = FunctionInKernelName(name, kernel_class);
  }
  return kernel;
}

const StepTracker::ApiInfo& StepTracker::ApiNamed(uint64_t name_iid) {
  auto [api, inserted] = apis_by_iid_.try_emplace(name_iid);
  if (inserted) {
    const std::string name = name_of_(name_iid);
    api.launches_work = LaunchesGpuWork(name);
    // CUPTI names the runtime call "cudaProfilerStart_v4000".
    const std::string_view function = ApiNameWithoutVersion(name);
    api.profiler_start = function == "cudaProfilerStart" || function == "cuProfilerStart";
  }
  return api;
}

}  // namespace vprof::reporter
