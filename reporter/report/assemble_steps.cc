#include "reporter/report/assemble_steps.h"

#include <algorithm>
#include <map>

#include "reporter/gpu/api_records.h"
#include "reporter/gpu/gpu_report.h"
#include "reporter/steps/deep_capture.h"
#include "reporter/steps/full_steps.h"
#include "reporter/steps/step_memory.h"
#include "reporter/steps/step_store.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kOptimizerRule =
    "bursts of optimizer kernels (kernel class \"optimizer\", reporter/gpu/kernel_class_rules.cc); "
    "a step ends with the last kernel of a burst";

struct RankSource {
  const ProcessRecord* record;
  const ProcessReport* process;
  StepStore* steps;
  uint32_t skipped = 0;  // steps before cudaProfilerStart or the first graph replay's step
  bool before_profiler_start = false;
  bool before_graph_replays = false;
};

// How many of the steps found start before `at` (none without it).
uint32_t StepsBefore(const StepStore& found, std::optional<int64_t> at) {
  uint32_t before = 0;
  while (at && before < found.size() && found.rows()[before].range_start_ns < *at) ++before;
  return before;
}

// The eager steps before a process's first step inside a CUDA-graph replay:
// the graph's warm-up iterations and its capture, left out as the steps
// before cudaProfilerStart are, when the replays' steps are at least as many.
// A program that replays a graph for a few steps among more eager ones keeps
// them all.
uint32_t ExcludedBeforeGraphReplays(const StepStore& found,
                                    std::optional<int64_t> first_graph_step_ns) {
  const uint32_t eager = StepsBefore(found, first_graph_step_ns);
  return found.size() - eager >= eager ? eager : 0;
}

std::string RoleOf(const StreamRoleReport& stream, const StepStreamUse& use) {
  const uint64_t compute = use.compute_kernels + use.graph_replays;
  if (compute > 0 && use.comm_kernels > 0) return "mixed";
  if (compute > 0) return "compute";
  if (use.comm_kernels > 0) return "communication";
  return stream.kernels > 0 ? "mixed" : "copy";
}

SpanRef SpanOf(const StepSpan& span, int64_t offset_ns) {
  return {"correlation:" + std::to_string(span.correlation_id), span.name,
          span.start_ns + offset_ns, span.duration_ns};
}

// Same (op, bytes) sequence in every measured step; none without buckets.
std::optional<bool> BucketPlanStable(const std::vector<RankStepReport>& steps) {
  if (std::all_of(steps.begin(), steps.end(),
                  [](const RankStepReport& step) { return step.buckets.empty(); })) {
    return std::nullopt;
  }
  const std::vector<BucketReport>& first = steps.front().buckets;
  const auto same_bucket = [](const BucketReport& a, const BucketReport& b) {
    return a.op == b.op && a.bytes == b.bytes;
  };
  return std::all_of(steps.begin(), steps.end(), [&](const RankStepReport& step) {
    return std::equal(step.buckets.begin(), step.buckets.end(), first.begin(), first.end(),
                      same_bucket);
  });
}

// None without a measured calibration. From the trace's status, not the
// process's report: node summaries build steps without the latter.
std::optional<LaunchCostEstimate> LaunchCostOf(const GpuRecord& gpu,
                                               const std::vector<RankStepReport>& steps) {
  if (!gpu.capture || !gpu.capture->has_launch_cost()) return std::nullopt;
  const LaunchCostReport cost = LaunchCostReportOf(gpu.capture->launch_cost());
  if (!cost.failure.empty()) return std::nullopt;
  LaunchCostEstimate estimate;
  estimate.added_per_launch_ns = cost.added_ns();
  estimate.bare_per_launch_ns = cost.bare_launch_ns;
  estimate.added_gpu_per_kernel_ns = cost.added_gpu_ns();
  estimate.recorded_launch_call_ns =
      static_cast<uint64_t>(std::max<int64_t>(0, gpu.launch_calls.Median().value_or(0)));
  for (const RankStepReport& step : steps) estimate.launches += step.launches;
  estimate.steps = static_cast<uint32_t>(steps.size());
  return estimate;
}

// Moves the store's rows from `first_measured` on into the rank's report.
RankStepsReport RankReportOf(const RankSource& source, uint32_t first_measured) {
  StepStore& store = *source.steps;
  const int64_t offset = source.record->clock_offset_ns;
  RankStepsReport rank;
  rank.rank = source.process->rank;
  rank.file = source.process->file;
  rank.steps_found = static_cast<uint32_t>(store.size());
  rank.late_records = source.record->steps.late_records;
  rank.unlaunched_records = source.record->steps.unlaunched_records;
  rank.max_connections_one = source.record->steps.max_connections_one;
  const std::optional<StepDetail> detail = store.DetailFrom(first_measured);
  std::deque<StepRow> rows = store.TakeRows();
  if (rows.size() > first_measured) rank.steps.reserve(rows.size() - first_measured);
  std::vector<PhaseWindow> phase_spans;
  for (size_t index = first_measured; index < rows.size(); ++index) {
    rank.steps_missing_phase_ranges += rows[index].phase_ranges_missing;
    for (const StepRow::PhaseSpan& span : rows[index].phase_spans) {
      phase_spans.push_back({store.phase_names()[span.phase], span.from_nvtx,
                             static_cast<uint32_t>(index), span.start_ns + offset,
                             span.end_ns + offset});
    }
    RankStepReport& step = rank.steps.emplace_back(std::move(rows[index].step));
    step.start_ns += offset;
    step.end_ns += offset;
    for (StepCollective& collective : step.collectives) collective.start_ns += offset;
    for (ReplayWork& work : step.replay) {
      work.launch_ns += offset;
      work.start_ns += offset;
      work.end_ns += offset;
    }
    AddSegmentTimes(rank.total, step.times);
  }
  rows = {};
  rank.phase_names = store.phase_names();
  rank.replay_names = store.replay_names();
  AddStepMemory(source.record->gpu.memory, offset, rank.steps);
  AddSampledDeviceMemory(source.record->gpu.memory, offset, rank);
  AddPhaseMemory(source.record->gpu.memory, offset, phase_spans, rank);
  AddAllocationCalls(source.record->gpu.memory, offset, rank);
  AddStepTransfers(source.record->gpu.memory, offset, rank);
  rank.memory_events_dropped = source.record->gpu.memory.dropped_events;
  if (detail) {
    for (const auto& [id, use] : detail->streams) {
      StreamRoleReport stream{id, "", use.compute_kernels + use.comm_kernels, use.busy_ns,
                              use.graph_replays};
      stream.role = RoleOf(stream, use);
      rank.streams.push_back(stream);
    }
    for (const auto& [phase, times] : detail->phases) rank.phases.push_back({phase, true, times});
    if (detail->longest_exposed_comm) {
      rank.longest_exposed_comm = SpanOf(*detail->longest_exposed_comm, offset);
    }
    if (detail->longest_idle_gap) rank.longest_idle_gap = SpanOf(*detail->longest_idle_gap, offset);
  }
  rank.bucket_plan_stable = BucketPlanStable(rank.steps);
  rank.deep_capture = DeepCaptureOf(source.record->steps, store);
  rank.launch_cost = LaunchCostOf(source.record->gpu, rank.steps);
  return rank;
}

// The deep capture of each process under a deep schedule, with the steps of
// its `store` that no window held.
std::vector<DeepCaptureReport> UnheldSteps(const std::vector<ProcessRecord>& records,
                                           StepStore ProcessSteps::*store) {
  std::vector<DeepCaptureReport> unheld;
  for (const ProcessRecord& record : records) {
    if (auto deep = DeepCaptureOf(record.steps, record.steps.*store)) unheld.push_back(*deep);
  }
  return unheld;
}

StepsReport EmptyStepsReport(const StepOptions& options, const StepPatterns& patterns) {
  StepsReport report;
  report.warmup_steps = options.warmup_steps;
  report.pattern = patterns.Description();
  return report;
}

}  // namespace

std::optional<StepsReport> BuildStepsReport(std::vector<ProcessRecord>& records,
                                            const std::vector<ProcessReport>& processes,
                                            const StepOptions& options,
                                            const StepPatterns& patterns) {
  if (std::none_of(records.begin(), records.end(),
                   [](const ProcessRecord& record) { return record.steps.any_kernels; })) {
    // Where GPU capture ran under a deep schedule, that is no failure of
    // capture: say why.
    const ProcessSteps* deep = nullptr;
    for (const ProcessRecord& record : records) {
      const bool capturing =
          record.gpu.capture && record.gpu.capture->state() == vprof::trace::GPU_CAPTURE_ACTIVE;
      if (record.steps.deep_schedule.empty() || !capturing) continue;
      if (!deep || record.steps.deep_windows > deep->deep_windows) deep = &record.steps;
    }
    if (!deep) return std::nullopt;
    StepsReport report = EmptyStepsReport(options, patterns);
    report.problem = NoGpuActivityProblem(deep->deep_schedule, deep->deep_windows);
    return report;
  }
  StepsReport report = EmptyStepsReport(options, patterns);
  if (const auto error = StepPatternError(options.patterns)) {
    report.problem = *error;
    return report;
  }
  const bool nvtx = std::any_of(records.begin(), records.end(), [](const ProcessRecord& record) {
    return record.steps.nvtx.size() > 0;
  });
  report.source = nvtx ? StepSource::kNvtx : StepSource::kOptimizerKernels;
  if (!nvtx) report.pattern = std::string(kOptimizerRule);

  std::vector<RankSource> sources;
  // Processes whose kernels have no launch records (a VPROF_CUPTI_KINDS list
  // without API records): their GPU work cannot be put into steps, and a step
  // of theirs would show as all idle.
  size_t unlaunched = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    ProcessSteps& steps = records[i].steps;
    StepStore& found = nvtx ? steps.nvtx : steps.inferred;
    if (steps.any_kernels && !LaunchesRecorded(records[i].gpu)) {
      ++unlaunched;
      continue;
    }
    if (found.size() == 0) {
      // Under a deep schedule, a process no window held a step of, by either
      // rule: so a node summary, which cannot know the merged report's source,
      // decides as the folder does. Its NVTX steps where it marked any.
      if (steps.nvtx.size() == 0 && steps.inferred.size() == 0) {
        const StepStore& unheld = steps.nvtx.shallow() > 0 ? steps.nvtx : steps.inferred;
        const std::optional<DeepCaptureReport> deep = DeepCaptureOf(steps, unheld);
        if (deep && deep->shallow_steps > 0) report.deep_without_steps.push_back(*deep);
      }
      continue;
    }
    RankSource source{&records[i], &processes[i], &found};
    source.skipped = StepsBefore(found, steps.profiler_start_ns);
    source.before_profiler_start = source.skipped > 0;
    if (&found == &steps.inferred) {
      const uint32_t eager = ExcludedBeforeGraphReplays(found, steps.first_graph_step_ns);
      source.before_graph_replays = eager > source.skipped;
      source.skipped = std::max(source.skipped, eager);
    }
    sources.push_back(source);
  }
  if (sources.empty() && unlaunched > 0) {
    report.problem =
        "GPU capture recorded no API calls (a VPROF_CUPTI_KINDS list without SELECTED_API, "
        "RUNTIME or DRIVER), and a step's GPU work is found through the launches that queued it; "
        "the light default (VPROF_CUPTI_KINDS unset) records them";
    return report;
  }
  if (sources.empty()) {
    // Under deep windows: no window held a whole step. NVTX is the source
    // only where a window held an NVTX step (so too in the node summaries'
    // merge); without inferred steps either, the NVTX steps are named.
    report.problem = NoStepHeldProblem(
        UnheldSteps(records, nvtx ? &ProcessSteps::nvtx : &ProcessSteps::inferred));
    if (report.problem.empty() && !nvtx) {
      report.problem = NoStepHeldProblem(UnheldSteps(records, &ProcessSteps::nvtx));
      if (!report.problem.empty()) {
        report.source = StepSource::kNvtx;
        report.pattern = patterns.Description();
      }
    }
    if (!report.problem.empty()) return report;
    report.problem = "no NVTX range matched " + patterns.Description() +
                     " and no process had optimizer kernels to end steps with (" +
                     std::string(kOptimizerRule) +
                     "); name one NVTX range per training step, or pass --step-pattern";
    return report;
  }
  std::stable_sort(sources.begin(), sources.end(), [](const RankSource& a, const RankSource& b) {
    const auto key = [](const RankSource& s) {
      return std::make_pair(!s.process->rank.has_value(), s.process->rank.value_or(0));
    };
    return key(a) < key(b);
  });

  uint32_t skipped = 0;
  for (const RankSource& source : sources) {
    skipped = std::max(skipped, source.skipped);
    report.before_profiler_start_excluded |= source.before_profiler_start;
    report.before_graph_replays_excluded |= source.before_graph_replays;
  }
  report.first_measured = skipped + options.warmup_steps;
  for (const RankSource& source : sources) {
    report.ranks.push_back(RankReportOf(source, report.first_measured));
  }
  CompleteFullSteps(report);
  return report;
}

}  // namespace vprof::reporter
