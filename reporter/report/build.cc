#include "reporter/report/build.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "reporter/base/saturating_ns.h"
#include "reporter/base/upper_median.h"
#include "reporter/consistency/clock_collective_check.h"
#include "reporter/ingest/trace_merge.h"
#include "reporter/ingest/trace_source.h"
#include "reporter/report/assemble.h"
#include "reporter/report/assemble_steps.h"
#include "reporter/trace/clock_alignment.h"

namespace vprof::reporter {
namespace {

// The process whose clock the collective check compares the others' with:
// the lowest header rank, else the first opened file (its index; 0 when none
// was opened).
size_t ClockReference(const std::vector<std::unique_ptr<TraceSource>>& sources) {
  std::optional<size_t> reference;
  for (size_t process = 0; process < sources.size(); ++process) {
    const ProcessRecord& record = sources[process]->record();
    if (!record.opened) continue;
    if (!reference) {
      reference = process;
      continue;
    }
    const std::optional<int32_t>& best = sources[*reference]->record().header_rank;
    if (record.header_rank && (!best || *record.header_rank < *best)) reference = process;
  }
  return reference.value_or(0);
}

// Processes whose aligned start is more than kImplausibleClockGapNs from the
// median start of those aligned: the processes of one run start within
// minutes of each other, so a day apart is a clock set wrong, not a late start.
std::vector<FarClock> FarClocks(const std::vector<std::unique_ptr<TraceSource>>& sources) {
  constexpr int64_t kImplausibleClockGapNs = 24LL * 3600 * 1'000'000'000;
  std::vector<int64_t> starts;
  const auto start_of = [](const ProcessRecord& record) {
    return SaturatingAdd(static_cast<int64_t>(record.start_ns), record.clock_offset_ns);
  };
  for (const auto& source : sources) {
    const ProcessRecord& record = source->record();
    if (record.opened && !record.clock_unaligned) starts.push_back(start_of(record));
  }
  if (starts.size() < 2) return {};
  const int64_t median = UpperMedian(std::move(starts));
  std::vector<FarClock> far;
  for (const auto& source : sources) {
    const ProcessRecord& record = source->record();
    if (!record.opened || record.clock_unaligned) continue;
    const int64_t from_median = SaturatingSub(start_of(record), median);
    if (from_median > kImplausibleClockGapNs || from_median < -kImplausibleClockGapNs) {
      far.push_back({record.file(), record.header_rank, from_median});
    }
  }
  return far;
}

// One host (or kMonotonic): every process keeps its host's CLOCK_MONOTONIC
// and times are used as they are. Otherwise each process gets the offset that
// moves its times to CLOCK_REALTIME. The error bound is filled in once the
// samples are read, the collective check once the collectives are.
TimeSource AlignClocks(const std::vector<std::unique_ptr<TraceSource>>& sources, ClockChoice clock,
                       size_t reference) {
  std::set<std::string> hosts;
  for (const auto& source : sources) {
    if (source->record().opened) hosts.insert(source->record().host);
  }
  const bool realtime =
      clock == ClockChoice::kRealtime || (clock == ClockChoice::kByHosts && hosts.size() > 1);
  TimeSource time_source;
  time_source.hosts.assign(hosts.begin(), hosts.end());
  time_source.aligned_to_realtime = realtime;
  for (size_t process = 0; process < sources.size(); ++process) {
    ProcessRecord& record = sources[process]->record();
    const std::string file = record.file();
    time_source.processes.push_back({file, 0, std::nullopt});
    if (!record.opened) continue;
    if (process == reference) time_source.collective_reference = file;
    if (!realtime) continue;
    if (const std::optional<int64_t> offset = ScanMedianClockOffset(record.path)) {
      record.clock_offset_ns = *offset;
      time_source.processes.back().host_sample_offset_ns = *offset;
    } else {
      record.clock_unaligned = true;
      ++time_source.unaligned_processes;
    }
  }
  if (realtime) time_source.far_clocks = FarClocks(sources);
  return time_source;
}

GatheredTraces GatherTracesWith(const std::vector<std::string>& paths, ClockChoice clock,
                                const StepPatterns& step_patterns, uint32_t warmup_steps,
                                unsigned jobs, const MergeProgressSink& progress = {}) {
  std::vector<std::unique_ptr<TraceSource>> sources;
  for (const std::string& path : paths) {
    sources.push_back(std::make_unique<TraceSource>(path, step_patterns));
    sources.back()->KeepStepDetailOfFirst(warmup_steps + kDetailedStepsPastWarmup);
    sources.back()->KeepStepReplayOf(warmup_steps, kReplaySteps,
                                     ReplayWorksPerProcess(paths.size()));
    sources.back()->Open();
  }
  const size_t reference = ClockReference(sources);
  GatheredTraces gathered{
      AlignClocks(sources, clock, reference), {}, CollectiveStats(sources.size()), {}, {}};

  CrossRankGpuTime cross_rank;
  CollectiveClockCheck clock_check(sources.size(), reference);
  const auto spans = [&cross_rank, &clock_check](uint32_t process,
                                                 const CollectiveKernelSpan& span) {
    cross_rank.Add(span);
    clock_check.Add(process, span);
  };
  CollectiveMatcher matcher(sources.size());
  MergeTraces(sources, matcher, gathered.stats, spans, jobs, progress);
  gathered.pending = matcher.TakePending();
  gathered.cross_rank = cross_rank.totals();
  const auto estimates = clock_check.Estimates();
  for (size_t process = 0; process < sources.size(); ++process) {
    gathered.time_source.processes[process].collectives = estimates[process];
  }

  TimeSource& time_source = gathered.time_source;
  // Reserved: a growing vector would copy every record (a ProcessRecord is
  // not nothrow-movable: its step rows are a deque) and all its step rows.
  gathered.records.reserve(sources.size());
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

GatheredTraces GatherTraces(const std::vector<std::string>& paths, ClockChoice clock,
                            const StepOptions& steps, unsigned jobs) {
  return GatherTracesWith(paths, clock, StepPatterns(steps.patterns), steps.warmup_steps, jobs);
}

ProcessRecords ReadProcessRecords(const std::vector<std::string>& paths, ClockChoice clock) {
  std::vector<std::unique_ptr<TraceSource>> sources;
  for (const std::string& path : paths) {
    sources.push_back(
        std::make_unique<TraceSource>(path, DefaultStepMatcher(), StepTracking::kOff));
    sources.back()->Open();
  }
  ProcessRecords read{AlignClocks(sources, clock, ClockReference(sources)), {}};
  read.records.reserve(sources.size());
  // One after another: nothing here compares processes as they are read.
  for (const auto& source : sources) {
    while (source->ReadNextBatch()) {
    }
    read.records.push_back(std::move(source->record()));
  }
  return read;
}

Report BuildReport(const std::string& directory, const std::vector<std::string>& paths,
                   const ConsistencyOptions& consistency, const StepOptions& steps,
                   const MergeProgressSink& progress, unsigned jobs) {
  const StepPatterns step_patterns(steps.patterns);
  GatheredTraces gathered = GatherTracesWith(paths, ClockChoice::kByHosts, step_patterns,
                                             steps.warmup_steps, jobs, progress);
  return FinishReport(
      directory, std::move(gathered.time_source), gathered.records, gathered.stats,
      gathered.pending, gathered.cross_rank, consistency,
      [&](const std::vector<ProcessReport>& processes) {
        return BuildStepsReport(gathered.records, processes, steps, step_patterns);
      },
      jobs);
}

}  // namespace vprof::reporter
