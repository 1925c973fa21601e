#include "reporter/steps/step_store.h"

#include <algorithm>
#include <map>
#include <utility>

namespace vprof::reporter {
namespace {

void AddMap(auto& into, const auto& more) {
  for (const auto& [key, ns] : more) into[key] += ns;
}

// Keeps `into` unless `later` has a larger figure: the first largest wins.
void KeepLongest(std::optional<StepSpan>& into, const std::optional<StepSpan>& later,
                 int64_t StepSpan::*figure) {
  if (!later || (*later).*figure <= 0) return;
  if (!into || (*later).*figure > (*into).*figure) into = later;
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

void StepDetail::Add(const StepDetail& later) {
  for (const auto& [phase, times] : later.phases) AddSegmentTimes(phases[phase], times);
  for (const auto& entry : later.streams) AddStreamUse(entry.second);
  KeepLongestSpans(later.longest_exposed_comm, later.longest_idle_gap);
}

void StepDetail::Add(const StepResult& step) {
  for (const auto& [phase, times] : step.phases) AddSegmentTimes(phases[phase], times);
  for (const StepStreamUse& use : step.streams) AddStreamUse(use);
  KeepLongestSpans(step.longest_exposed_comm, step.longest_idle_gap);
}

void StepDetail::KeepLongestSpans(const std::optional<StepSpan>& exposed_comm,
                                  const std::optional<StepSpan>& idle_gap) {
  KeepLongest(longest_exposed_comm, exposed_comm, &StepSpan::exposed_ns);
  KeepLongest(longest_idle_gap, idle_gap, &StepSpan::duration_ns);
}

void StepDetail::AddStreamUse(const StepStreamUse& use) {
  StepStreamUse& sum = streams[use.stream];
  sum.stream = use.stream;
  sum.compute_kernels += use.compute_kernels;
  sum.comm_kernels += use.comm_kernels;
  sum.copies += use.copies;
  sum.graph_replays += use.graph_replays;
  sum.busy_ns += use.busy_ns;
}

void StepStore::Add(StepResult step) {
  // Past the first steps, a step's detail goes straight into the sum.
  const bool detailed = rows_.size() < detailed_steps_;
  if (detailed) first_.emplace_back();
  (detailed ? first_.back() : rest_).Add(step);
  std::vector<StepRow::PhaseSpan> spans;
  spans.reserve(step.phase_spans.size());
  for (const PhaseSpan& span : step.phase_spans) {
    spans.push_back({IndexOf(span.phase), span.from_nvtx, span.start_ns, span.end_ns});
  }
  // The step's own phase indexes, as the store's.
  std::vector<PhaseIndex> store_index;
  store_index.reserve(step.phase_table.size());
  for (const std::string_view phase : step.phase_table) {
    store_index.push_back(phase.empty() ? PhaseIndex{0} : IndexOf(phase));
  }
  for (PhaseTime& time : step.compute_by_phase) time.phase = store_index[time.phase];
  for (PhaseTime& time : step.host_idle_by_phase) time.phase = store_index[time.phase];
  for (StepCollective& collective : step.collectives) {
    collective.phase = store_index[collective.phase];
  }
  RankStepReport report;
  report.step = static_cast<uint32_t>(rows_.size());
  report.launches = step.launches;
  report.start_ns = step.start_ns;
  report.end_ns = step.end_ns;
  report.times = std::move(step.times);
  report.buckets = std::move(step.buckets);
  report.number = step.number;
  report.replay = std::move(step.replay);
  for (ReplayWork& work : report.replay) work.phase = store_index[work.phase];
  report.compute_by_phase = std::move(step.compute_by_phase);
  report.host_idle_by_phase = std::move(step.host_idle_by_phase);
  report.collectives = std::move(step.collectives);
  report.exposed_pieces = std::move(step.exposed_pieces);
  rows_.push_back(
      {step.range_start_ns, step.phase_ranges_missing, std::move(report), std::move(spans)});
}

PhaseIndex StepStore::IndexOf(std::string_view phase) {
  auto name = std::find(phase_names_.begin(), phase_names_.end(), phase);
  if (name == phase_names_.end()) name = phase_names_.emplace(name, phase);
  return static_cast<PhaseIndex>(name - phase_names_.begin());
}

std::optional<StepDetail> StepStore::DetailFrom(uint32_t first) const {
  const bool summed = rows_.size() > first_.size();
  if (first > first_.size() && summed) return std::nullopt;
  StepDetail detail;
  for (size_t i = first; i < first_.size(); ++i) detail.Add(first_[i]);
  if (summed) detail.Add(rest_);
  return detail;
}

size_t ReplayWorksPerProcess(size_t processes) {
  return std::max(kMinReplayWorks, kReplayWorks / std::max<size_t>(1, processes));
}

void StepStore::NameSpans(const std::function<std::string(uint64_t iid)>& name_of) {
  std::map<uint64_t, uint64_t> replay_index;  // by name iid
  for (StepRow& row : rows_) {
    for (ReplayWork& work : row.step.replay) {
      const auto [at, added] = replay_index.try_emplace(work.name, replay_names_.size());
      if (added) replay_names_.push_back(work.name == 0 ? std::string() : name_of(work.name));
      work.name = at->second;
    }
  }
  const auto name = [&](std::optional<StepSpan>& span) {
    if (!span) return;
    if (span->name_iid != 0) {
      span->name = name_of(span->name_iid);
    } else if (span->name.empty()) {
      span->name = "memcpy/memset";
    }
  };
  for (StepDetail& detail : first_) {
    name(detail.longest_exposed_comm);
    name(detail.longest_idle_gap);
  }
  name(rest_.longest_exposed_comm);
  name(rest_.longest_idle_gap);
}

}  // namespace vprof::reporter
