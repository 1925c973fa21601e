#include "reporter/replay/replay_graph.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "reporter/phases/inferred_phase.h"

namespace vprof::reporter {
namespace {

// The piece of `rank` (other than on `stream`, or any when kNone) whose end
// is the latest in [from_ns, to_ns]; kNone when there is none. `by_end` holds
// the rank's pieces sorted by end.
uint32_t EndedWithin(const std::vector<ReplayOp>& ops, const std::vector<uint32_t>& by_end,
                     int64_t from_ns, int64_t to_ns, uint32_t not_stream) {
  auto it = std::upper_bound(by_end.begin(), by_end.end(), to_ns,
                             [&](int64_t at, uint32_t op) { return at < ops[op].work->end_ns; });
  while (it != by_end.begin()) {
    --it;
    const ReplayWork& work = *ops[*it].work;
    if (work.end_ns < from_ns) break;
    if (not_stream == kNone || work.stream != not_stream) return *it;
  }
  return kNone;
}

// Gradient buckets launched "when ready" need their gradients; the trace
// says when a bucket's all-reduce began, not when its last gradient was
// computed, which a bucket held back (overlap turned off) hides. Taken: the
// rank's k-th of N bucket collectives of the step is ready once the first
// (k+1)/N of its backward compute has run (buckets of about equal size, in
// backward order), unless the compute it followed ended sooner.
void AssumeBucketReadiness(const StepsReport& steps, ReplayGraph& graph) {
  // Per rank, in the order of the ops: one pass over all ranks' ops.
  std::vector<std::vector<uint32_t>> backward_of(graph.ranks.size()),
      buckets_of(backward_of.size());
  for (uint32_t i = 0; i < graph.ops.size(); ++i) {
    const ReplayOp& op = graph.ops[i];
    const ReplayWork& work = *op.work;
    const std::vector<std::string>& phases = steps.ranks[op.rank].phase_names;
    if (work.kind == WorkKind::kComm && work.role == CommRole::kGradientBuckets) {
      buckets_of[op.rank].push_back(i);
    } else if (work.kind == WorkKind::kCompute && work.phase < phases.size() &&
               phases[work.phase] == kBackwardPhase) {
      backward_of[op.rank].push_back(i);
    }
  }
  for (uint32_t r = 0; r < graph.ranks.size(); ++r) {
    const std::vector<uint32_t>& backward = backward_of[r];
    const std::vector<uint32_t>& buckets = buckets_of[r];
    if (backward.empty()) continue;
    graph.ranks[r].first_backward =
        *std::min_element(backward.begin(), backward.end(), [&](uint32_t a, uint32_t b) {
          return graph.ops[a].work->launch_ns < graph.ops[b].work->launch_ns;
        });
    for (size_t k = 0; k < buckets.size(); ++k) {
      const size_t needed = ((k + 1) * backward.size() + buckets.size() - 1) / buckets.size();
      const uint32_t ready = backward[needed - 1];
      ReplayOp& op = graph.ops[buckets[k]];
      if (op.compute_before == kNone ||
          graph.ops[ready].work->end_ns < graph.ops[op.compute_before].work->end_ns) {
        op.compute_before = ready;
      }
    }
  }
}

}  // namespace

std::optional<ReplayGraph> BuildReplayGraph(const StepsReport& steps, size_t index) {
  ReplayGraph graph;
  graph.step = steps.full_steps[index].step;
  graph.full_step = static_cast<uint32_t>(index);
  graph.start_ns = steps.full_steps[index].start_ns;
  graph.measured_ns = steps.full_steps[index].duration_ns;
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    const RankStepReport& step = steps.ranks[r].steps[index];
    if (step.replay.empty()) return std::nullopt;
    graph.ranks.push_back({step.start_ns, step.end_ns, 0, kNone});
    for (const ReplayWork& work : step.replay) {
      graph.ops.push_back({r, &work, work.end_ns - work.start_ns});
    }
  }

  // Per rank: streams and host threads in launch order, pieces by end.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> last_on_stream, last_of_thread;
  std::vector<std::vector<uint32_t>> by_end(steps.ranks.size());
  for (uint32_t i = 0; i < graph.ops.size(); ++i) by_end[graph.ops[i].rank].push_back(i);
  for (std::vector<uint32_t>& ends : by_end) {
    std::sort(ends.begin(), ends.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(graph.ops[a].work->end_ns, a) < std::tie(graph.ops[b].work->end_ns, b);
    });
  }
  // Stream order is start order (a stream runs its work one piece at a time).
  std::vector<uint32_t> by_start(graph.ops.size());
  for (uint32_t i = 0; i < by_start.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(), [&](uint32_t a, uint32_t b) {
    return graph.ops[a].work->start_ns < graph.ops[b].work->start_ns;
  });
  for (const uint32_t i : by_start) {
    ReplayOp& op = graph.ops[i];
    const auto [at, fresh] = last_on_stream.try_emplace({op.rank, op.work->stream}, i);
    if (!fresh) {
      op.stream_before = at->second;
      at->second = i;
    }
  }
  // Launch order within each rank, over all its threads.
  std::vector<uint32_t> by_launch(graph.ops.size());
  for (uint32_t i = 0; i < by_launch.size(); ++i) by_launch[i] = i;
  std::stable_sort(by_launch.begin(), by_launch.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(graph.ops[a].rank, graph.ops[a].work->launch_ns) <
           std::tie(graph.ops[b].rank, graph.ops[b].work->launch_ns);
  });
  std::vector<std::vector<uint32_t>> computes(steps.ranks.size());  // launched so far
  std::vector<uint32_t> last_of_rank(steps.ranks.size(), kNone);
  for (const uint32_t i : by_launch) {
    ReplayOp& op = graph.ops[i];
    const ReplayWork& work = *op.work;
    const ReplayRank& rank = graph.ranks[op.rank];
    const std::vector<uint32_t>& launched = computes[op.rank];
    for (auto it = launched.rbegin(); work.kind == WorkKind::kComm && it != launched.rend(); ++it) {
      if (graph.ops[*it].work->end_ns <= work.start_ns) {
        op.compute_before = *it;
        break;
      }
    }
    if (work.kind == WorkKind::kCompute) computes[op.rank].push_back(i);
    const auto [at, fresh] = last_of_thread.try_emplace({op.rank, work.tid}, i);
    // A thread's first launch follows the rank's launch before it, of another thread: a helper
    // thread (a gradient-bucket thread) is woken by what the main thread did. The rank's first
    // launch follows the step's start.
    const uint32_t before = fresh ? last_of_rank[op.rank] : at->second;
    last_of_rank[op.rank] = i;
    const int64_t before_ns = before == kNone ? rank.start_ns : graph.ops[before].work->launch_ns;
    op.launch_before = before;
    if (!fresh) at->second = i;
    op.host_gap_ns = std::max<int64_t>(0, work.launch_ns - before_ns);
    // A launch long after the previous one (past the launch cadence), soon after a piece ended
    // that ran past that previous launch: the host waited for it (a synchronization, or a
    // thread that did), then worked the rest of the gap. "Soon": within a quarter of the gap,
    // or kEdgeSlackNs; a host busy with its own work for most of the gap is not waiting.
    if (before != kNone && op.host_gap_ns > 2 * kEdgeSlackNs) {
      const uint32_t synced =
          EndedWithin(graph.ops, by_end[op.rank], before_ns, work.launch_ns, kNone);
      if (synced != kNone && synced != i &&
          work.launch_ns - graph.ops[synced].work->end_ns <=
              std::max(kEdgeSlackNs, op.host_gap_ns / 4)) {
        op.synced_on = synced;
        op.host_after_sync_ns = work.launch_ns - graph.ops[synced].work->end_ns;
        ++graph.assumed_syncs;
      }
    }
    // A start later than its launch and its stream allowed (never before its step's window):
    // it waited for another stream, or for what the trace does not show.
    const int64_t ready = std::max(
        {work.launch_ns, rank.start_ns,
         op.stream_before == kNone ? INT64_MIN : graph.ops[op.stream_before].work->end_ns});
    op.latency_ns = std::max<int64_t>(0, work.start_ns - ready);
    if (op.latency_ns > kEdgeSlackNs) {
      const uint32_t waited = EndedWithin(graph.ops, by_end[op.rank], work.start_ns - kEdgeSlackNs,
                                          work.start_ns, work.stream);
      // Nothing ended just before it: it waited for what ended last before it on another
      // stream, later than the slack allows (a loaded host thread that forwards the wait), or
      // for what the trace does not show; either way counted as unexplained.
      const uint32_t last = waited != kNone ? waited
                                            : EndedWithin(graph.ops, by_end[op.rank], ready,
                                                          work.start_ns, work.stream);
      if (waited == kNone) {
        ++graph.unexplained_starts;
        graph.unexplained_ns += op.latency_ns;
      }
      if (last != kNone && graph.ops[last].work->end_ns > ready) {
        op.waited_for = last;
        op.latency_ns = work.start_ns - graph.ops[last].work->end_ns;
        graph.assumed_waits += waited != kNone;
      }
    }
    // Moved "when ready", a piece keeps only its latency after the last of what it waited for.
    int64_t last_ready = ready;
    if (op.waited_for != kNone) {
      last_ready = std::max(last_ready, graph.ops[op.waited_for].work->end_ns);
    }
    if (op.compute_before != kNone) {
      last_ready = std::max(last_ready, graph.ops[op.compute_before].work->end_ns);
    }
    op.ready_latency_ns = std::max<int64_t>(0, work.start_ns - last_ready);
  }
  for (const auto& [key, last] : last_of_thread) {
    const ReplayOp& op = graph.ops[last];
    ReplayRank& rank = graph.ranks[key.first];
    if (rank.last_launch == kNone ||
        op.work->launch_ns > graph.ops[rank.last_launch].work->launch_ns) {
      rank.last_launch = last;
    }
  }
  for (ReplayRank& rank : graph.ranks) {
    const uint32_t r = static_cast<uint32_t>(&rank - graph.ranks.data());
    // by_end is in order of end: its last piece ends last.
    const int64_t last_end =
        by_end[r].empty() ? INT64_MIN : graph.ops[by_end[r].back()].work->end_ns;
    // The window ended with the host's range, after the GPU's last work: the host's tail.
    if (rank.last_launch != kNone && rank.end_ns > last_end) {
      const int64_t launched = graph.ops[rank.last_launch].work->launch_ns;
      rank.host_tail_ns = rank.end_ns - launched;
      const uint32_t synced = EndedWithin(graph.ops, by_end[r], launched, rank.end_ns, kNone);
      if (rank.host_tail_ns > 2 * kEdgeSlackNs && synced != kNone &&
          rank.end_ns - graph.ops[synced].work->end_ns <=
              std::max(kEdgeSlackNs, rank.host_tail_ns / 4)) {
        rank.tail_synced_on = synced;
        rank.tail_after_sync_ns = rank.end_ns - graph.ops[synced].work->end_ns;
        ++graph.assumed_syncs;
      }
    }
  }

  // Collectives: members by (communicator, seq); a group needs every rank's piece.
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint32_t>> members;
  for (uint32_t i = 0; i < graph.ops.size(); ++i) {
    const ReplayWork& work = *graph.ops[i].work;
    if (work.kind == WorkKind::kComm && work.comm_id != 0 && work.seq != 0) {
      members[{work.comm_id, work.seq}].push_back(i);
    }
  }
  for (auto& [key, group] : members) {
    if (group.size() < 2) {
      graph.collectives_apart += group.size();
      continue;
    }
    ReplayGroup& joined = graph.groups.emplace_back();
    joined.members = std::move(group);
    int64_t last_start = INT64_MIN, last_end = INT64_MIN;
    for (const uint32_t member : joined.members) {
      last_start = std::max(last_start, graph.ops[member].work->start_ns);
      last_end = std::max(last_end, graph.ops[member].work->end_ns);
    }
    joined.transfer_ns = last_end - last_start;
    for (const uint32_t member : joined.members) {
      graph.ops[member].group = static_cast<uint32_t>(graph.groups.size() - 1);
      graph.ops[member].before_last_end_ns = last_end - graph.ops[member].work->end_ns;
    }
  }
  AssumeBucketReadiness(steps, graph);
  return graph;
}

}  // namespace vprof::reporter
