#include "reporter/steps/build_steps_report.h"

#include <algorithm>
#include <map>

namespace vprof::reporter {
namespace {

constexpr std::string_view kOptimizerRule =
    "bursts of optimizer kernels (kernel class \"optimizer\", reporter/kernel_class_rules.cc); "
    "a step ends with the last kernel of a burst";

struct RankSource {
  const ProcessRecord* record;
  const ProcessReport* process;
  const std::vector<StepResult>* steps;
  uint32_t skipped = 0;  // steps before cudaProfilerStart
};

void AddMap(auto& into, const auto& more) {
  for (const auto& [key, ns] : more) into[key] += ns;
}

std::string RoleOf(const StreamRoleReport& stream, const StepStreamUse& use) {
  if (use.compute_kernels > 0 && use.comm_kernels > 0) return "mixed";
  if (use.compute_kernels > 0) return "compute";
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
  const auto plan = [](const RankStepReport& step) {
    std::vector<std::pair<std::string, uint64_t>> sizes;
    for (const BucketReport& bucket : step.buckets) sizes.emplace_back(bucket.op, bucket.bytes);
    return sizes;
  };
  const auto first = plan(steps.front());
  return std::all_of(steps.begin(), steps.end(),
                     [&](const RankStepReport& step) { return plan(step) == first; });
}

RankStepsReport RankReportOf(const RankSource& source, uint32_t first_measured) {
  const std::vector<StepResult>& found = *source.steps;
  const int64_t offset = source.record->clock_offset_ns;
  RankStepsReport rank;
  rank.rank = source.process->rank;
  rank.file = source.process->file;
  rank.steps_found = static_cast<uint32_t>(found.size());
  rank.late_records = source.record->steps.late_records;
  rank.max_connections_one = source.record->steps.max_connections_one;
  std::map<uint32_t, StepStreamUse> streams;
  std::map<std::string, SegmentTimes> phases;
  int64_t longest_exposed = 0;
  int64_t longest_gap = 0;
  for (uint32_t index = first_measured; index < found.size(); ++index) {
    const StepResult& step = found[index];
    rank.steps.push_back(
        {index, step.start_ns + offset, step.end_ns + offset, step.times, step.buckets});
    AddSegmentTimes(rank.total, step.times);
    for (const auto& [phase, times] : step.phases) AddSegmentTimes(phases[phase], times);
    for (const StepStreamUse& use : step.streams) {
      StepStreamUse& sum = streams[use.stream];
      sum.stream = use.stream;
      sum.compute_kernels += use.compute_kernels;
      sum.comm_kernels += use.comm_kernels;
      sum.copies += use.copies;
      sum.busy_ns += use.busy_ns;
    }
    if (step.longest_exposed_comm && step.longest_exposed_comm->exposed_ns > longest_exposed) {
      longest_exposed = step.longest_exposed_comm->exposed_ns;
      rank.longest_exposed_comm = SpanOf(*step.longest_exposed_comm, offset);
    }
    if (step.longest_idle_gap && step.longest_idle_gap->duration_ns > longest_gap) {
      longest_gap = step.longest_idle_gap->duration_ns;
      rank.longest_idle_gap = SpanOf(*step.longest_idle_gap, offset);
    }
  }
  for (const auto& [id, use] : streams) {
    StreamRoleReport stream{id, "", use.compute_kernels + use.comm_kernels, use.busy_ns};
    stream.role = RoleOf(stream, use);
    rank.streams.push_back(stream);
  }
  for (const auto& [phase, times] : phases) rank.phases.push_back({phase, true, times});
  rank.bucket_plan_stable = BucketPlanStable(rank.steps);
  return rank;
}

// "3" or "3-5".
std::string IndexRange(uint32_t first, uint32_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::string WindowText(uint32_t first, uint32_t last, uint32_t found, uint32_t skipped,
                       uint32_t warmup) {
  std::string text = "steps " + IndexRange(first, last) + " of " + std::to_string(found) + " (";
  if (skipped > 0) text += "steps " + IndexRange(0, skipped - 1) + " before cudaProfilerStart and ";
  if (warmup == 0) return text + "no warmup excluded)";
  return text + "warmup " + IndexRange(skipped, skipped + warmup - 1) + " excluded)";
}

int64_t Median(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

void AddSegmentTimes(SegmentTimes& into, const SegmentTimes& more) {
  into.window_ns += more.window_ns;
  into.compute_ns += more.compute_ns;
  into.exposed_comm_ns += more.exposed_comm_ns;
  into.exposed_comm_blocking_ns += more.exposed_comm_blocking_ns;
  into.exposed_comm_idle_fill_ns += more.exposed_comm_idle_fill_ns;
  into.overlapped_comm_ns += more.overlapped_comm_ns;
  into.copy_ns += more.copy_ns;
  into.idle_ns += more.idle_ns;
  into.idle_host_bound_ns += more.idle_host_bound_ns;
  into.idle_waiting_ns += more.idle_waiting_ns;
  AddMap(into.exposed_by_reason_ns, more.exposed_by_reason_ns);
  AddMap(into.exposed_by_comm_ns, more.exposed_by_comm_ns);
}

std::optional<StepsReport> BuildStepsReport(const std::vector<ProcessRecord>& records,
                                            const std::vector<ProcessReport>& processes,
                                            const StepOptions& options,
                                            const StepPatterns& patterns) {
  if (std::none_of(records.begin(), records.end(),
                   [](const ProcessRecord& record) { return record.steps.any_kernels; })) {
    return std::nullopt;
  }
  StepsReport report;
  report.warmup_steps = options.warmup_steps;
  report.pattern = patterns.Description();
  if (const auto error = StepPatternError(options.patterns)) {
    report.problem = *error;
    return report;
  }
  const bool nvtx = std::any_of(records.begin(), records.end(), [](const ProcessRecord& record) {
    return !record.steps.nvtx.empty();
  });
  report.source = nvtx ? StepSource::kNvtx : StepSource::kOptimizerKernels;
  if (!nvtx) report.pattern = std::string(kOptimizerRule);

  std::vector<RankSource> sources;
  for (size_t i = 0; i < records.size(); ++i) {
    const ProcessSteps& steps = records[i].steps;
    const std::vector<StepResult>& found = nvtx ? steps.nvtx : steps.inferred;
    if (found.empty()) continue;
    RankSource source{&records[i], &processes[i], &found, 0};
    while (steps.profiler_start_ns && source.skipped < found.size() &&
           found[source.skipped].range_start_ns < *steps.profiler_start_ns) {
      ++source.skipped;
    }
    sources.push_back(source);
  }
  if (sources.empty()) {
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
  uint32_t found = 0;
  for (const RankSource& source : sources) {
    skipped = std::max(skipped, source.skipped);
    found = std::max(found, static_cast<uint32_t>(source.steps->size()));
  }
  report.steps_found = found;
  report.before_profiler_start_excluded = skipped > 0;
  report.first_measured = skipped + options.warmup_steps;
  size_t full_steps = SIZE_MAX;
  for (const RankSource& source : sources) {
    const size_t count = source.steps->size();
    full_steps = std::min(
        full_steps, count > report.first_measured ? count - report.first_measured : size_t{0});
    report.ranks.push_back(RankReportOf(source, report.first_measured));
  }
  if (full_steps == 0) {
    size_t fewest = SIZE_MAX;
    for (const RankSource& source : sources) fewest = std::min(fewest, source.steps->size());
    report.problem = "a rank has only " + std::to_string(fewest) + " steps, and the first " +
                     std::to_string(report.first_measured) + " are left out (warmup" +
                     (skipped > 0 ? ", steps before cudaProfilerStart" : "") +
                     "); lower --warmup or trace more steps";
    report.window = "no measured steps";
    return report;
  }
  report.last_measured = report.first_measured + static_cast<uint32_t>(full_steps) - 1;
  report.window =
      WindowText(report.first_measured, report.last_measured, found, skipped, options.warmup_steps);

  std::vector<int64_t> durations;
  for (size_t i = 0; i < full_steps; ++i) {
    FullStepReport full{report.first_measured + static_cast<uint32_t>(i), INT64_MAX, 0, {}, 0};
    int64_t end = INT64_MIN;
    for (const RankStepsReport& rank : report.ranks) {
      const RankStepReport& step = rank.steps[i];
      full.start_ns = std::min(full.start_ns, step.start_ns);
      if (step.end_ns > end) {
        end = step.end_ns;
        full.slowest_rank = rank.rank;
      }
      full.max_exposed_comm_ns = std::max(full.max_exposed_comm_ns, step.times.exposed_comm_ns);
    }
    full.duration_ns = end - full.start_ns;
    durations.push_back(full.duration_ns);
    report.full_steps.push_back(full);
  }
  report.median_step_ns = Median(durations);
  return report;
}

}  // namespace vprof::reporter
