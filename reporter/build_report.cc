#include "reporter/build_report.h"

#include <algorithm>
#include <memory>
#include <set>

#include "reporter/assemble_report.h"
#include "reporter/candidates/rank_candidates.h"
#include "reporter/clock_alignment.h"
#include "reporter/steps/build_steps_report.h"
#include "reporter/trace_merge.h"
#include "reporter/trace_source.h"

namespace vprof::reporter {
namespace {

// One host (or kMonotonic): every process keeps its host's CLOCK_MONOTONIC
// and times are used as they are. Otherwise each process gets the offset that
// moves its times to CLOCK_REALTIME. The error bound is filled in once the
// samples are read.
TimeSource AlignClocks(const std::vector<std::unique_ptr<TraceSource>>& sources,
                       ClockChoice clock) {
  std::set<std::string> hosts;
  for (const auto& source : sources) {
    if (source->record().opened) hosts.insert(source->record().host);
  }
  const bool realtime =
      clock == ClockChoice::kRealtime || (clock == ClockChoice::kByHosts && hosts.size() > 1);
  TimeSource time_source{{hosts.begin(), hosts.end()}, realtime, 0, 0};
  if (!time_source.aligned_to_realtime) return time_source;
  for (const auto& source : sources) {
    ProcessRecord& record = source->record();
    if (!record.opened) continue;
    const std::optional<int64_t> offset = ScanMedianClockOffset(record.path);
    if (offset) {
      record.clock_offset_ns = *offset;
    } else {
      record.clock_unaligned = true;
      ++time_source.unaligned_processes;
    }
  }
  return time_source;
}

GatheredTraces GatherTracesWith(const std::vector<std::string>& paths, ClockChoice clock,
                                const StepPatterns& step_patterns) {
  std::vector<std::unique_ptr<TraceSource>> sources;
  for (const std::string& path : paths) {
    sources.push_back(std::make_unique<TraceSource>(path, step_patterns));
    sources.back()->Open();
  }
  GatheredTraces gathered{AlignClocks(sources, clock), {}, CollectiveStats(sources.size()), {}, {}};

  CrossRankGpuTime cross_rank;
  for (const auto& source : sources) {
    source->SendCollectiveSpansTo(
        [&cross_rank](const CollectiveKernelSpan& span) { cross_rank.Add(span); });
  }
  CollectiveMatcher matcher;
  MergeTraces(sources, matcher, gathered.stats);
  gathered.pending = matcher.TakePending();
  gathered.cross_rank = cross_rank.totals();

  TimeSource& time_source = gathered.time_source;
  for (const auto& source : sources) {
    gathered.records.push_back(std::move(source->record()));
    if (time_source.aligned_to_realtime) {
      time_source.clock_error_bound_ns = std::max(
          time_source.clock_error_bound_ns, gathered.records.back().clock_samples.spread_ns());
    }
  }
  return gathered;
}

}  // namespace

GatheredTraces GatherTraces(const std::vector<std::string>& paths, ClockChoice clock) {
  return GatherTracesWith(paths, clock, DefaultStepMatcher());
}

Report BuildReport(const std::string& directory, const std::vector<std::string>& paths,
                   const ConsistencyOptions& consistency, const StepOptions& steps) {
  const StepPatterns step_patterns(steps.patterns);
  GatheredTraces gathered = GatherTracesWith(paths, ClockChoice::kByHosts, step_patterns);
  Report report = AssembleReport(directory, std::move(gathered.time_source), gathered.records,
                                 gathered.stats, gathered.pending, consistency);
  AddCollectiveGpuTime(gathered.cross_rank, report);
  report.steps = BuildStepsReport(gathered.records, report.processes, steps, step_patterns);
  report.candidates = RankCandidates(report, consistency.contract);
  return report;
}

}  // namespace vprof::reporter
