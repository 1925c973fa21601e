#include "reporter/steps/step_segments.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <tuple>

#include "reporter/steps/sort_runs.h"

namespace vprof::reporter {
namespace {

using Interval = std::pair<int64_t, int64_t>;  // [start, end)

struct Edge {
  int64_t at_ns;
  bool opens;
  uint32_t work;  // index into the works
};

// By time; then, for one order whichever way the edges were sorted, closing
// before opening and by work.
bool EdgeBefore(const Edge& a, const Edge& b) {
  return std::tie(a.at_ns, a.opens, a.work) < std::tie(b.at_ns, b.opens, b.work);
}

struct StreamPiece {
  uint32_t stream;
  int64_t start_ns;
  int64_t end_ns;
  WorkKind kind;
  bool whole_graph;
};

// The working vectors of one analysis, kept from step to step: a report
// analyzes millions of steps (and each again per phase), and allocating these
// anew for each was a large share of its time. Cleared, never shrunk: they
// hold as much as the largest step needed.
struct Scratch {
  std::vector<Interval> clipped;  // each work clipped to the window
  std::vector<Edge> edges;
  std::vector<Edge> spare_edges;
  std::vector<size_t> run_bounds;
  std::vector<uint32_t> compute_streams;
  std::vector<const GpuWork*> compute_by_launch;
  std::vector<const GpuWork*> spare_compute;
  std::vector<std::pair<int64_t, int64_t>> first_launch_starting_at;
  std::vector<std::pair<int64_t, int64_t>> spare_first_launch;
  std::vector<std::pair<int64_t, uint32_t>> running_comm;     // (clipped start, work), sorted
  std::vector<std::pair<int64_t, uint32_t>> running_compute;  // likewise
  std::vector<int64_t> compute_by_phase;                      // by step-local phase index
  std::vector<int64_t> idle_by_phase;
  struct Piece {
    uint32_t work;
    int64_t from_ns;
    int64_t to_ns;
  };
  std::vector<Piece> exposed_pieces;  // in time order
  std::vector<int64_t> exposed_of;
  std::vector<uint32_t> reductions;
  std::vector<std::pair<uint64_t, int64_t>> exposed_by_comm;  // (comm_id, ns), one per kernel
  std::vector<StreamPiece> pieces;
  std::vector<StreamPiece> spare_pieces;
  std::vector<uint32_t> graph_launches;  // correlation ids
};

Scratch& ScratchSpace() {
  thread_local Scratch scratch;
  return scratch;
}

// One per work launched on its own; the nodes of one CUDA graph launch share
// its correlation id, and count once.
uint32_t LaunchesOf(std::span<const GpuWork> works, std::vector<uint32_t>& graph_launches) {
  graph_launches.clear();
  uint32_t launches = 0;
  for (const GpuWork& work : works) {
    if (work.from_graph) {
      graph_launches.push_back(work.correlation_id);
    } else {
      ++launches;
    }
  }
  std::sort(graph_launches.begin(), graph_launches.end());
  return launches +
         static_cast<uint32_t>(std::unique(graph_launches.begin(), graph_launches.end()) -
                               graph_launches.begin());
}

// Opens or closes `work`, started (clipped) at `start_ns`, in `running`:
// sorted by start, so that its front is the earliest started.
void Track(std::vector<std::pair<int64_t, uint32_t>>& running, int64_t start_ns, uint32_t work,
           bool opens) {
  const std::pair<int64_t, uint32_t> entry{start_ns, work};
  const auto position = std::lower_bound(running.begin(), running.end(), entry);
  if (opens) {
    running.insert(position, entry);
  } else if (position != running.end() && *position == entry) {
    running.erase(position);
  }
}

// Per phase index, the non-zero sums.
std::vector<PhaseTime> PhaseTimes(const std::vector<int64_t>& by_phase) {
  std::vector<PhaseTime> times;
  for (size_t phase = 0; phase < by_phase.size(); ++phase) {
    if (by_phase[phase] != 0) times.push_back({static_cast<PhaseIndex>(phase), by_phase[phase]});
  }
  return times;
}

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

// How many distinct keys `sorted` (sorted by key) holds.
template <typename T, typename KeyOf>
size_t DistinctKeys(const std::vector<T>& sorted, KeyOf key_of) {
  size_t keys = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    keys += i == 0 || key_of(sorted[i]) != key_of(sorted[i - 1]);
  }
  return keys;
}

// Each stream's work counts and busy time (the union of its work's clipped
// intervals), in stream order; work clipped away is left out.
std::vector<StepStreamUse> StreamUses(std::span<const GpuWork> works, Scratch& scratch) {
  std::vector<StreamPiece>& pieces = scratch.pieces;
  pieces.clear();
  for (size_t i = 0; i < works.size(); ++i) {
    const auto [start, end] = scratch.clipped[i];
    if (end > start) {
      pieces.push_back({works[i].stream, start, end, works[i].kind, works[i].whole_graph});
    }
  }
  // Pieces equal in all three count alike whichever comes first.
  SortRuns(pieces, scratch.spare_pieces, scratch.run_bounds,
           [](const StreamPiece& a, const StreamPiece& b) {
             return std::tie(a.stream, a.start_ns, a.end_ns) <
                    std::tie(b.stream, b.start_ns, b.end_ns);
           });
  std::vector<StepStreamUse> uses;
  // Kept with the step: no spare room.
  uses.reserve(DistinctKeys(pieces, [](const StreamPiece& piece) { return piece.stream; }));
  int64_t covered_until = 0;
  for (const StreamPiece& piece : pieces) {
    if (uses.empty() || uses.back().stream != piece.stream) {
      uses.push_back({.stream = piece.stream});
      covered_until = piece.start_ns;
    }
    StepStreamUse& use = uses.back();
    if (piece.whole_graph) {
      ++use.graph_replays;
    } else if (piece.kind == WorkKind::kCompute) {
      ++use.compute_kernels;
    }
    if (piece.kind == WorkKind::kComm) ++use.comm_kernels;
    if (piece.kind == WorkKind::kCopy) ++use.copies;
    const int64_t from = std::max(piece.start_ns, covered_until);
    if (piece.end_ns > from) use.busy_ns += piece.end_ns - from;
    covered_until = std::max(covered_until, piece.end_ns);
  }
  return uses;
}

// Every communication kernel of the step with its exposed pieces (from the
// sweep, in time order), adjacent pieces joined.
template <typename InBackward>
void CollectivesOf(std::span<const GpuWork> works, const StepContext& context,
                   const InBackward& in_backward, Scratch& scratch, StepResult& result) {
  std::vector<Scratch::Piece>& pieces = scratch.exposed_pieces;
  std::stable_sort(
      pieces.begin(), pieces.end(),
      [](const Scratch::Piece& a, const Scratch::Piece& b) { return a.work < b.work; });
  auto next_piece = pieces.begin();
  for (uint32_t i = 0; i < works.size(); ++i) {
    const GpuWork& work = works[i];
    if (work.kind != WorkKind::kComm) continue;
    StepCollective collective;
    collective.comm_id = work.comm_id;
    collective.seq = i < context.work_seq.size() ? context.work_seq[i] : 0;
    collective.bytes = work.bytes;
    collective.start_ns = work.start_ns;
    collective.duration_ns = work.end_ns - work.start_ns;
    collective.first_piece = static_cast<uint32_t>(result.exposed_pieces.size());
    collective.correlation_id = work.correlation_id;
    collective.phase = i < context.work_phase.size() ? context.work_phase[i] : 0;
    collective.function = work.function;
    collective.in_backward = in_backward(work);
    for (; next_piece != pieces.end() && next_piece->work == i; ++next_piece) {
      const int64_t from = next_piece->from_ns - work.start_ns;
      const int64_t to = next_piece->to_ns - work.start_ns;
      collective.exposed_ns += to - from;
      if (collective.pieces > 0 && result.exposed_pieces.back().to_ns == from) {
        result.exposed_pieces.back().to_ns = to;
      } else {
        result.exposed_pieces.push_back({from, to});
        ++collective.pieces;
      }
    }
    result.collectives.push_back(collective);
  }
}

}  // namespace

StepResult AnalyzeStep(int64_t range_start_ns, int64_t window_start_ns, int64_t window_end_ns,
                       std::span<const GpuWork> works, const StepContext& context,
                       StepAnalysis depth) {
  Scratch& scratch = ScratchSpace();
  StepResult result;
  result.range_start_ns = range_start_ns;
  result.start_ns = window_start_ns;
  result.end_ns = std::max(window_start_ns, window_end_ns);
  SegmentTimes& times = result.times;
  times.window_ns = result.end_ns - result.start_ns;
  if (depth == StepAnalysis::kFull) result.launches = LaunchesOf(works, scratch.graph_launches);

  // `works` answer the questions about whole kernels (when a collective
  // ended, where a bucket starts); their clipped intervals feed the sweep.
  std::vector<Interval>& clipped = scratch.clipped;
  // Sized first and written in place: these loops run for every work of
  // every step and phase, and a push_back's capacity check was a good part
  // of them.
  clipped.resize(works.size());
  for (size_t i = 0; i < works.size(); ++i) {
    clipped[i] = {std::max(works[i].start_ns, result.start_ns),
                  std::min(works[i].end_ns, result.end_ns)};
  }

  std::vector<Edge>& edges = scratch.edges;
  std::vector<uint32_t>& compute_streams = scratch.compute_streams;  // sorted, once each
  std::vector<const GpuWork*>& compute_by_launch = scratch.compute_by_launch;
  edges.resize(2 * works.size());
  size_t edge_count = 0;
  compute_streams.clear();
  compute_by_launch.clear();
  for (uint32_t i = 0; i < works.size(); ++i) {
    const auto [start, end] = clipped[i];
    if (end <= start) continue;
    edges[edge_count++] = {start, true, i};
    edges[edge_count++] = {end, false, i};
    if (works[i].kind == WorkKind::kCompute) {
      if (compute_streams.empty() || compute_streams.back() != works[i].stream) {
        compute_streams.push_back(works[i].stream);
      }
      compute_by_launch.push_back(&works[i]);
    }
  }
  edges.resize(edge_count);
  std::sort(compute_streams.begin(), compute_streams.end());
  compute_streams.erase(std::unique(compute_streams.begin(), compute_streams.end()),
                        compute_streams.end());
  SortRuns(edges, scratch.spare_edges, scratch.run_bounds, EdgeBefore);
  // Kernels launched together (one graph launch) in works order.
  SortRuns(compute_by_launch, scratch.spare_compute, scratch.run_bounds,
           [](const GpuWork* a, const GpuWork* b) {
             return a->launch_ns < b->launch_ns || (a->launch_ns == b->launch_ns && a < b);
           });
  // The launch of the first compute kernel that starts at or after `at`:
  // (start, earliest launch of the kernels starting then), by start.
  std::vector<std::pair<int64_t, int64_t>>& first_launch_starting_at =
      scratch.first_launch_starting_at;
  first_launch_starting_at.clear();
  for (const GpuWork* work : compute_by_launch) {
    first_launch_starting_at.emplace_back(std::max(work->start_ns, result.start_ns),
                                          work->launch_ns);
  }
  SortRuns(first_launch_starting_at, scratch.spare_first_launch, scratch.run_bounds, std::less<>());
  first_launch_starting_at.erase(
      std::unique(first_launch_starting_at.begin(), first_launch_starting_at.end(),
                  [](const auto& a, const auto& b) { return a.first == b.first; }),
      first_launch_starting_at.end());

  // The sweep: between two consecutive edges the set of running work is
  // fixed, so each such piece of the window is classified once.
  int counts[3] = {0, 0, 0};
  // Running collectives and (for the ledger's phases) compute by start, the
  // oldest first: a handful at most, so sorted vectors.
  std::vector<std::pair<int64_t, uint32_t>>& running_comm = scratch.running_comm;
  std::vector<std::pair<int64_t, uint32_t>>& running_compute = scratch.running_compute;
  running_comm.clear();
  running_compute.clear();
  const bool full = depth == StepAnalysis::kFull;
  const auto phase_of = [&](uint32_t work) -> PhaseIndex {
    return work < context.work_phase.size() ? context.work_phase[work] : 0;
  };
  size_t phases = 1;
  for (const PhaseIndex phase : context.work_phase) phases = std::max<size_t>(phases, phase + 1);
  scratch.compute_by_phase.assign(full ? phases : 0, 0);
  scratch.idle_by_phase.assign(full ? phases : 0, 0);
  scratch.exposed_pieces.clear();
  std::vector<int64_t>& exposed_of = scratch.exposed_of;
  exposed_of.assign(works.size(), 0);
  int64_t longest_gap = -1;
  int64_t at = result.start_ns;
  size_t next = 0;
  while (at < result.end_ns) {
    while (next < edges.size() && edges[next].at_ns <= at) {
      const Edge& edge = edges[next++];
      const GpuWork& work = works[edge.work];
      counts[static_cast<int>(work.kind)] += edge.opens ? 1 : -1;
      if (work.kind == WorkKind::kComm) {
        Track(running_comm, clipped[edge.work].first, edge.work, edge.opens);
      } else if (work.kind == WorkKind::kCompute && full) {
        Track(running_compute, clipped[edge.work].first, edge.work, edge.opens);
      }
    }
    const int64_t until =
        next < edges.size() ? std::min(edges[next].at_ns, result.end_ns) : result.end_ns;
    const int64_t length = until - at;
    if (counts[static_cast<int>(WorkKind::kCompute)] > 0) {
      times.compute_ns += length;
      if (full) scratch.compute_by_phase[phase_of(running_compute.front().second)] += length;
      if (counts[static_cast<int>(WorkKind::kComm)] > 0) times.overlapped_comm_ns += length;
    } else if (counts[static_cast<int>(WorkKind::kComm)] > 0) {
      times.exposed_comm_ns += length;
      const uint32_t comm = running_comm.front().second;
      exposed_of[comm] += length;
      if (full) scratch.exposed_pieces.push_back({comm, at, until});
      // Blocking: the compute kernel that next runs was queued before the
      // collective ended, so the GPU had work that waited for it.
      const auto next_compute =
          std::lower_bound(first_launch_starting_at.begin(), first_launch_starting_at.end(), until,
                           [](const auto& entry, int64_t at) { return entry.first < at; });
      const bool blocking = next_compute != first_launch_starting_at.end() &&
                            next_compute->second < works[comm].end_ns;
      (blocking ? times.exposed_comm_blocking_ns : times.exposed_comm_idle_fill_ns) += length;
    } else if (counts[static_cast<int>(WorkKind::kCopy)] > 0) {
      times.copy_ns += length;
    } else {
      times.idle_ns += length;
      // The gap ends where work opens at `until`; the earliest launched of it
      // says whether the GPU waited for the host or for a dependency.
      std::optional<uint32_t> ender;
      for (size_t e = next; e < edges.size() && edges[e].at_ns == until; ++e) {
        if (!edges[e].opens) continue;
        if (!ender || works[edges[e].work].launch_ns < works[*ender].launch_ns) {
          ender = edges[e].work;
        }
      }
      const bool waiting = ender && works[*ender].launch_ns <= at;
      (waiting ? times.idle_waiting_ns : times.idle_host_bound_ns) += length;
      if (full && !waiting) scratch.idle_by_phase[ender ? phase_of(*ender) : 0] += length;
      if (ender && length > longest_gap) {
        longest_gap = length;
        result.longest_idle_gap = StepSpan{works[*ender].correlation_id,
                                           works[*ender].name_iid,
                                           works[*ender].whole_graph ? "CUDA-graph replay" : "",
                                           at,
                                           length,
                                           0};
      }
    }
    at = until;
  }

  // The exposed time by reason and by communicator, summed here first so
  // that each map is sized once: every step and phase window fills two.
  int64_t longest_exposed = 0;
  int64_t by_reason[kExposureReasons] = {};  // above 0 for each reason that holds
  std::vector<std::pair<uint64_t, int64_t>>& by_comm = scratch.exposed_by_comm;
  by_comm.clear();
  for (size_t i = 0; i < works.size(); ++i) {
    if (exposed_of[i] == 0) continue;
    const GpuWork& comm = works[i];
    const auto reason = static_cast<size_t>(
        ReasonFor(comm, compute_streams, compute_by_launch, context.max_connections_one));
    by_reason[reason] += exposed_of[i];
    by_comm.emplace_back(comm.comm_id, exposed_of[i]);
    if (exposed_of[i] > longest_exposed) {
      longest_exposed = exposed_of[i];
      result.longest_exposed_comm =
          StepSpan{comm.correlation_id,         comm.name_iid, "", comm.start_ns,
                   comm.end_ns - comm.start_ns, exposed_of[i]};
    }
  }
  times.exposed_by_reason_ns.reserve(static_cast<size_t>(std::count_if(
      std::begin(by_reason), std::end(by_reason), [](int64_t ns) { return ns > 0; })));
  for (size_t reason = 0; reason < kExposureReasons; ++reason) {
    if (by_reason[reason] > 0) {
      times.exposed_by_reason_ns[static_cast<ExposureReason>(reason)] = by_reason[reason];
    }
  }
  std::sort(by_comm.begin(), by_comm.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  times.exposed_by_comm_ns.reserve(
      DistinctKeys(by_comm, [](const auto& entry) { return entry.first; }));
  for (const auto& [comm_id, ns] : by_comm) times.exposed_by_comm_ns[comm_id] += ns;

  if (depth == StepAnalysis::kTimesOnly) return result;

  // Gradient buckets: backward's reductions in issue order (CUPTI's
  // correlation ids grow with every API call, so they give launch order).
  int64_t first_optimizer_launch = INT64_MAX;
  for (const GpuWork& work : works) {
    if (work.optimizer) first_optimizer_launch = std::min(first_optimizer_launch, work.launch_ns);
  }
  const auto in_backward = [&](const GpuWork& work) {
    if (!context.has_backward_phase) return work.launch_ns < first_optimizer_launch;
    return std::any_of(context.backward.begin(), context.backward.end(), [&](const auto& range) {
      return work.launch_ns >= range.first && work.launch_ns <= range.second;
    });
  };
  std::vector<uint32_t>& reductions = scratch.reductions;
  reductions.clear();
  for (uint32_t i = 0; i < works.size(); ++i) {
    if (works[i].kind == WorkKind::kComm && IsReduction(works[i].function) &&
        in_backward(works[i])) {
      reductions.push_back(i);
    }
  }
  std::sort(reductions.begin(), reductions.end(), [&](uint32_t a, uint32_t b) {
    return works[a].correlation_id < works[b].correlation_id;
  });
  result.buckets.reserve(reductions.size());  // kept per rank and step: no spare room
  for (const uint32_t i : reductions) {
    const GpuWork& work = works[i];
    result.buckets.push_back({static_cast<uint32_t>(result.buckets.size()), work.function,
                              work.comm_id, work.bytes, work.start_ns - result.start_ns,
                              work.end_ns - work.start_ns, exposed_of[i]});
  }

  result.streams = StreamUses(works, scratch);
  result.compute_by_phase = PhaseTimes(scratch.compute_by_phase);
  result.host_idle_by_phase = PhaseTimes(scratch.idle_by_phase);
  CollectivesOf(works, context, in_backward, scratch, result);
  return result;
}

}  // namespace vprof::reporter
