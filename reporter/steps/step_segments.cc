#include "reporter/steps/step_segments.h"

#include <algorithm>
#include <map>
#include <set>

namespace vprof::reporter {
namespace {

struct Edge {
  int64_t at_ns;
  bool opens;
  size_t work;  // index into the clipped works
};

bool IsReduction(NcclFunction function) {
  return function == NcclFunction::kAllReduce || function == NcclFunction::kReduceScatter;
}

// The first reason that holds for a communication kernel with exposed time.
ExposureReason ReasonFor(const GpuWork& comm, const std::vector<uint32_t>& compute_streams,
                         const std::vector<const GpuWork*>& compute_by_launch,
                         bool max_connections_one) {
  if (std::binary_search(compute_streams.begin(), compute_streams.end(), comm.stream)) {
    return ExposureReason::kSameStream;
  }
  if (max_connections_one) return ExposureReason::kMaxConnectionsOne;
  const auto first =
      std::lower_bound(compute_by_launch.begin(), compute_by_launch.end(), comm.start_ns,
                       [](const GpuWork* work, int64_t at) { return work->launch_ns < at; });
  bool launched_while_running = false;
  bool all_started_after = true;
  for (auto it = first; it != compute_by_launch.end() && (*it)->launch_ns <= comm.end_ns; ++it) {
    launched_while_running = true;
    if ((*it)->start_ns < comm.end_ns) all_started_after = false;
  }
  if (!launched_while_running) return ExposureReason::kNothingToOverlap;
  if (all_started_after) return ExposureReason::kWaitedAtOnce;
  return ExposureReason::kOther;
}

std::vector<StepStreamUse> StreamUses(const std::vector<GpuWork>& works) {
  std::map<uint32_t, StepStreamUse> uses;
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> intervals;
  for (const GpuWork& work : works) {
    StepStreamUse& use = uses[work.stream];
    use.stream = work.stream;
    if (work.kind == WorkKind::kCompute) ++use.compute_kernels;
    if (work.kind == WorkKind::kComm) ++use.comm_kernels;
    if (work.kind == WorkKind::kCopy) ++use.copies;
    intervals[work.stream].emplace_back(work.start_ns, work.end_ns);
  }
  for (auto& [stream, spans] : intervals) {
    std::sort(spans.begin(), spans.end());
    int64_t covered_until = spans.front().first;
    int64_t& busy = uses[stream].busy_ns;
    for (const auto& [start, end] : spans) {
      const int64_t from = std::max(start, covered_until);
      if (end > from) busy += end - from;
      covered_until = std::max(covered_until, end);
    }
  }
  std::vector<StepStreamUse> result;
  for (const auto& [stream, use] : uses) result.push_back(use);
  return result;
}

}  // namespace

StepResult AnalyzeStep(int64_t range_start_ns, int64_t window_start_ns, int64_t window_end_ns,
                       std::vector<GpuWork> works, const StepContext& context) {
  StepResult result;
  result.range_start_ns = range_start_ns;
  result.start_ns = window_start_ns;
  result.end_ns = std::max(window_start_ns, window_end_ns);
  SegmentTimes& times = result.times;
  times.window_ns = result.end_ns - result.start_ns;

  // Unclipped copies for the questions about whole kernels (when a
  // collective ended, where a bucket starts); clipped ones for the sweep.
  const std::vector<GpuWork> whole = works;
  for (GpuWork& work : works) {
    work.start_ns = std::max(work.start_ns, result.start_ns);
    work.end_ns = std::min(work.end_ns, result.end_ns);
  }

  std::vector<Edge> edges;
  edges.reserve(2 * works.size());
  std::vector<uint32_t> compute_streams;  // sorted, once each
  std::vector<const GpuWork*> compute_by_launch;
  for (size_t i = 0; i < works.size(); ++i) {
    if (works[i].end_ns <= works[i].start_ns) continue;
    edges.push_back({works[i].start_ns, true, i});
    edges.push_back({works[i].end_ns, false, i});
    if (works[i].kind == WorkKind::kCompute) {
      compute_streams.push_back(works[i].stream);
      compute_by_launch.push_back(&whole[i]);
    }
  }
  std::sort(compute_streams.begin(), compute_streams.end());
  compute_streams.erase(std::unique(compute_streams.begin(), compute_streams.end()),
                        compute_streams.end());
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return a.at_ns < b.at_ns; });
  std::sort(compute_by_launch.begin(), compute_by_launch.end(),
            [](const GpuWork* a, const GpuWork* b) { return a->launch_ns < b->launch_ns; });
  // The launch of the first compute kernel that starts at or after `at`:
  // (start, earliest launch of the kernels starting then), by start.
  std::vector<std::pair<int64_t, int64_t>> first_launch_starting_at;
  for (const GpuWork* work : compute_by_launch) {
    first_launch_starting_at.emplace_back(std::max(work->start_ns, result.start_ns),
                                          work->launch_ns);
  }
  std::sort(first_launch_starting_at.begin(), first_launch_starting_at.end());
  first_launch_starting_at.erase(
      std::unique(first_launch_starting_at.begin(), first_launch_starting_at.end(),
                  [](const auto& a, const auto& b) { return a.first == b.first; }),
      first_launch_starting_at.end());

  // The sweep: between two consecutive edges the set of running work is
  // fixed, so each such piece of the window is classified once.
  int counts[3] = {0, 0, 0};
  std::set<std::pair<int64_t, size_t>> running_comm;  // by start: the oldest first
  std::vector<int64_t> exposed_of(works.size(), 0);
  int64_t longest_gap = -1;
  int64_t at = result.start_ns;
  size_t next = 0;
  while (at < result.end_ns) {
    while (next < edges.size() && edges[next].at_ns <= at) {
      const Edge& edge = edges[next++];
      const GpuWork& work = works[edge.work];
      counts[static_cast<int>(work.kind)] += edge.opens ? 1 : -1;
      if (work.kind == WorkKind::kComm) {
        if (edge.opens) {
          running_comm.insert({work.start_ns, edge.work});
        } else {
          running_comm.erase({work.start_ns, edge.work});
        }
      }
    }
    const int64_t until =
        next < edges.size() ? std::min(edges[next].at_ns, result.end_ns) : result.end_ns;
    const int64_t length = until - at;
    if (counts[static_cast<int>(WorkKind::kCompute)] > 0) {
      times.compute_ns += length;
      if (counts[static_cast<int>(WorkKind::kComm)] > 0) times.overlapped_comm_ns += length;
    } else if (counts[static_cast<int>(WorkKind::kComm)] > 0) {
      times.exposed_comm_ns += length;
      const size_t comm = running_comm.begin()->second;
      exposed_of[comm] += length;
      // Blocking: the compute kernel that next runs was queued before the
      // collective ended, so the GPU had work that waited for it.
      const auto next_compute =
          std::lower_bound(first_launch_starting_at.begin(), first_launch_starting_at.end(), until,
                           [](const auto& entry, int64_t at) { return entry.first < at; });
      const bool blocking = next_compute != first_launch_starting_at.end() &&
                            next_compute->second < whole[comm].end_ns;
      (blocking ? times.exposed_comm_blocking_ns : times.exposed_comm_idle_fill_ns) += length;
    } else if (counts[static_cast<int>(WorkKind::kCopy)] > 0) {
      times.copy_ns += length;
    } else {
      times.idle_ns += length;
      // The gap ends where work opens at `until`; the earliest launched of it
      // says whether the GPU waited for the host or for a dependency.
      std::optional<size_t> ender;
      for (size_t e = next; e < edges.size() && edges[e].at_ns == until; ++e) {
        if (!edges[e].opens) continue;
        if (!ender || whole[edges[e].work].launch_ns < whole[*ender].launch_ns) {
          ender = edges[e].work;
        }
      }
      const bool waiting = ender && whole[*ender].launch_ns <= at;
      (waiting ? times.idle_waiting_ns : times.idle_host_bound_ns) += length;
      if (ender && length > longest_gap) {
        longest_gap = length;
        result.longest_idle_gap =
            StepSpan{whole[*ender].correlation_id, whole[*ender].name_iid, "", at, length, 0};
      }
    }
    at = until;
  }

  int64_t longest_exposed = 0;
  for (size_t i = 0; i < works.size(); ++i) {
    if (exposed_of[i] == 0) continue;
    const GpuWork& comm = whole[i];
    const ExposureReason reason =
        ReasonFor(comm, compute_streams, compute_by_launch, context.max_connections_one);
    times.exposed_by_reason_ns[std::string(ExposureReasonName(reason))] += exposed_of[i];
    times.exposed_by_comm_ns[comm.comm_id] += exposed_of[i];
    if (exposed_of[i] > longest_exposed) {
      longest_exposed = exposed_of[i];
      result.longest_exposed_comm =
          StepSpan{comm.correlation_id,         comm.name_iid, "", comm.start_ns,
                   comm.end_ns - comm.start_ns, exposed_of[i]};
    }
  }

  // Gradient buckets: backward's reductions in issue order (CUPTI's
  // correlation ids grow with every API call, so they give launch order).
  int64_t first_optimizer_launch = INT64_MAX;
  for (const GpuWork& work : whole) {
    if (work.optimizer) first_optimizer_launch = std::min(first_optimizer_launch, work.launch_ns);
  }
  const auto in_backward = [&](const GpuWork& work) {
    if (!context.has_backward_phase) return work.launch_ns < first_optimizer_launch;
    return std::any_of(context.backward.begin(), context.backward.end(), [&](const auto& range) {
      return work.launch_ns >= range.first && work.launch_ns <= range.second;
    });
  };
  std::vector<size_t> reductions;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (whole[i].kind == WorkKind::kComm && IsReduction(whole[i].function) &&
        in_backward(whole[i])) {
      reductions.push_back(i);
    }
  }
  std::sort(reductions.begin(), reductions.end(),
            [&](size_t a, size_t b) { return whole[a].correlation_id < whole[b].correlation_id; });
  result.buckets.reserve(reductions.size());  // kept per rank and step: no spare room
  for (const size_t i : reductions) {
    const GpuWork& work = whole[i];
    result.buckets.push_back({static_cast<uint32_t>(result.buckets.size()), work.function,
                              work.comm_id, work.bytes, work.start_ns - result.start_ns,
                              work.end_ns - work.start_ns, exposed_of[i]});
  }

  std::erase_if(works, [](const GpuWork& work) { return work.end_ns <= work.start_ns; });
  if (!works.empty()) result.streams = StreamUses(works);
  return result;
}

}  // namespace vprof::reporter
