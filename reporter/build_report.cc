#include "reporter/build_report.h"

#include <algorithm>
#include <memory>
#include <set>

#include "reporter/assemble_report.h"
#include "reporter/clock_alignment.h"
#include "reporter/collective_matcher.h"
#include "reporter/collective_stats.h"
#include "reporter/trace_merge.h"
#include "reporter/trace_source.h"

namespace vprof::reporter {
namespace {

// One host: every process shares its CLOCK_MONOTONIC and times are used as
// they are. Several hosts: each process gets the offset that moves its times
// to CLOCK_REALTIME. The error bound is filled in once the samples are read.
TimeSource AlignClocks(const std::vector<std::unique_ptr<TraceSource>>& sources) {
  std::set<std::string> hosts;
  for (const auto& source : sources) {
    if (source->record().opened) hosts.insert(source->record().host);
  }
  TimeSource time_source{{hosts.begin(), hosts.end()}, hosts.size() > 1, 0, 0};
  if (!time_source.aligned_to_realtime) return time_source;
  for (const auto& source : sources) {
    ProcessRecord& record = source->record();
    if (!record.opened) continue;
    const std::optional<int64_t> offset = ScanMedianClockOffset(record.path);
    if (offset) {
      record.clock_offset_ns = *offset;
    } else {
      ++time_source.unaligned_processes;
    }
  }
  return time_source;
}

}  // namespace

Report BuildReport(const std::string& directory, const std::vector<std::string>& paths) {
  std::vector<std::unique_ptr<TraceSource>> sources;
  for (const std::string& path : paths) {
    sources.push_back(std::make_unique<TraceSource>(path));
    sources.back()->Open();
  }
  TimeSource time_source = AlignClocks(sources);

  CollectiveMatcher matcher;
  CollectiveStats stats(sources.size());
  MergeTraces(sources, matcher, stats);

  std::vector<ProcessRecord> records;
  for (const auto& source : sources) {
    records.push_back(source->record());
    if (time_source.aligned_to_realtime) {
      time_source.clock_error_bound_ns =
          std::max(time_source.clock_error_bound_ns, records.back().clock_samples.spread_ns());
    }
  }
  return AssembleReport(directory, std::move(time_source), records, stats, matcher.TakePending());
}

}  // namespace vprof::reporter
