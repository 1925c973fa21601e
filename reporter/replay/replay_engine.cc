#include "reporter/replay/replay_engine.h"

#include <algorithm>
#include <deque>
#include <map>

#include "reporter/steps/comm_roles.h"

namespace vprof::reporter {
namespace {

// The graph's times as the change makes them, per piece.
struct Changed {
  std::vector<int64_t> duration, host_gap, after_sync, latency;
  // The graph's assumed edges, or those of the rank a piece's rank runs like.
  std::vector<uint32_t> synced_on, waited_for;
  std::vector<bool> when_ready;
  std::vector<int64_t> transfer;                    // per group
  std::vector<int64_t> host_tail, tail_after_sync;  // per rank
};

int64_t Divided(int64_t ns, double factor) {
  return factor <= 0 ? 0 : static_cast<int64_t>(static_cast<double>(ns) / factor);
}

// Each rank's pieces, in graph (launch) order.
std::vector<std::vector<uint32_t>> OpsByRank(const ReplayGraph& graph) {
  std::vector<std::vector<uint32_t>> by_rank(graph.ranks.size());
  for (uint32_t i = 0; i < graph.ops.size(); ++i) by_rank[graph.ops[i].rank].push_back(i);
  return by_rank;
}

// What one launch costs each rank's host when it does nothing else between
// launches: its quickest gap between two launches in the step. A CUDA graph
// or a faster host still launches each piece; what closes is the rest of
// each gap.
std::vector<int64_t> LaunchPace(const ReplayGraph& graph,
                                const std::vector<std::vector<uint32_t>>& by_rank) {
  std::vector<int64_t> pace(graph.ranks.size(), 0);
  for (uint32_t r = 0; r < by_rank.size(); ++r) {
    int64_t quickest = INT64_MAX;
    for (const uint32_t i : by_rank[r]) {
      if (graph.ops[i].launch_before != kNone) {
        quickest = std::min(quickest, graph.ops[i].host_gap_ns);
      }
    }
    if (quickest != INT64_MAX) pace[r] = quickest;
  }
  return pace;
}

// Whether two ranks' pieces line up: as many, and the k-th of each (launch
// order) of the same kind and name, so that one's k-th stands for the other's.
bool PiecesLineUp(const ReplayGraph& graph, const StepsReport& steps,
                  const std::vector<std::vector<uint32_t>>& by_rank, uint32_t rank,
                  uint32_t other) {
  const std::vector<uint32_t>& mine = by_rank[rank];
  const std::vector<uint32_t>& theirs = by_rank[other];
  if (mine.size() != theirs.size()) return false;
  for (size_t k = 0; k < mine.size(); ++k) {
    const ReplayWork& a = *graph.ops[mine[k]].work;
    const ReplayWork& b = *graph.ops[theirs[k]].work;
    if (a.kind != b.kind ||
        steps.ranks[rank].replay_names[a.name] != steps.ranks[other].replay_names[b.name]) {
      return false;
    }
  }
  return true;
}

// A late rank's host gaps under no_host_gaps: each cut by what its peer's
// host loses of its own time before the same launch (launch order; after a
// synchronization, its time after it, not its wait for the late rank), never
// below the late rank's own pace, so that the late rank stays as much later
// than its peer as it was.
void CutLikePeer(const ReplayGraph& graph, const StepsReport& steps,
                 const std::vector<std::vector<uint32_t>>& by_rank,
                 const std::vector<int64_t>& pace, uint32_t rank, uint32_t peer, Changed& c) {
  if (rank >= by_rank.size() || peer >= by_rank.size()) return;
  if (!PiecesLineUp(graph, steps, by_rank, rank, peer)) return;
  const std::vector<uint32_t>& mine = by_rank[rank];
  const std::vector<uint32_t>& theirs = by_rank[peer];
  const auto peer_loses = [&](bool synced, int64_t gap, int64_t after_sync) {
    const int64_t own = synced ? after_sync : gap;
    return own - std::min(own, pace[peer]);
  };
  const auto cut = [&](int64_t& gap, int64_t loses) {
    gap = std::max(std::min(gap, pace[rank]), gap - loses);
  };
  for (size_t k = 0; k < mine.size(); ++k) {
    const ReplayOp& op = graph.ops[theirs[k]];
    const int64_t loses = peer_loses(op.synced_on != kNone, op.host_gap_ns, op.host_after_sync_ns);
    cut(c.host_gap[mine[k]], loses);
    cut(c.after_sync[mine[k]], loses);
  }
  const ReplayRank& p = graph.ranks[peer];
  const int64_t loses = peer_loses(p.tail_synced_on != kNone, p.host_tail_ns, p.tail_after_sync_ns);
  cut(c.host_tail[rank], loses);
  cut(c.tail_after_sync[rank], loses);
}

std::optional<Changed> Apply(const ReplayGraph& graph, const StepsReport& steps,
                             const ReplayChange& change) {
  Changed c;
  for (const ReplayOp& op : graph.ops) {
    c.duration.push_back(op.duration_ns);
    c.host_gap.push_back(op.host_gap_ns);
    c.after_sync.push_back(op.host_after_sync_ns);
    c.latency.push_back(op.latency_ns);
    c.synced_on.push_back(op.synced_on);
    c.waited_for.push_back(op.waited_for);
  }
  for (const ReplayGroup& group : graph.groups) c.transfer.push_back(group.transfer_ns);
  for (const ReplayRank& rank : graph.ranks) {
    c.host_tail.push_back(rank.host_tail_ns);
    c.tail_after_sync.push_back(rank.tail_after_sync_ns);
  }
  const std::vector<std::vector<uint32_t>> by_rank = OpsByRank(graph);
  for (const auto& [rank, like] : change.runs_like) {
    if (!PiecesLineUp(graph, steps, by_rank, rank, like)) return std::nullopt;
    const std::vector<uint32_t>& mine = by_rank[rank];
    const std::vector<uint32_t>& theirs = by_rank[like];
    // Their k-th piece is my k-th: their edges, moved onto mine.
    std::map<uint32_t, uint32_t> mine_of;
    for (size_t k = 0; k < mine.size(); ++k) mine_of[theirs[k]] = mine[k];
    const auto moved = [&](uint32_t theirs_op) {
      const auto found = mine_of.find(theirs_op);
      return found == mine_of.end() ? kNone : found->second;
    };
    for (size_t k = 0; k < mine.size(); ++k) {
      const ReplayOp& b = graph.ops[theirs[k]];
      c.duration[mine[k]] = b.duration_ns;
      c.host_gap[mine[k]] = b.host_gap_ns;
      c.after_sync[mine[k]] = b.host_after_sync_ns;
      c.latency[mine[k]] = b.latency_ns;
      c.synced_on[mine[k]] = moved(b.synced_on);
      c.waited_for[mine[k]] = moved(b.waited_for);
    }
    c.host_tail[rank] = graph.ranks[like].host_tail_ns;
    c.tail_after_sync[rank] = graph.ranks[like].tail_after_sync_ns;
  }
  for (const auto& [rank, factor] : change.rank_faster) {
    for (const uint32_t i : by_rank[rank]) {
      c.duration[i] = Divided(c.duration[i], factor);
      c.host_gap[i] = Divided(c.host_gap[i], factor);
      c.after_sync[i] = Divided(c.after_sync[i], factor);
    }
    c.host_tail[rank] = Divided(c.host_tail[rank], factor);
    c.tail_after_sync[rank] = Divided(c.tail_after_sync[rank], factor);
  }
  for (const ReplayChange::Faster& rule : change.faster) {
    std::vector<bool> done(graph.groups.size(), false);
    for (uint32_t i = 0; i < graph.ops.size(); ++i) {
      const ReplayOp& op = graph.ops[i];
      if (!rule.applies({*op.work, steps.ranks[op.rank]})) continue;
      c.duration[i] = Divided(c.duration[i], rule.factor);
      if (op.group != kNone && !done[op.group]) {
        done[op.group] = true;
        c.transfer[op.group] = Divided(c.transfer[op.group], rule.factor);
      }
    }
  }
  std::vector<bool> host_changes(graph.ranks.size(), true);
  for (const auto& [r, like] : change.lateness_kept) {
    if (r < host_changes.size()) host_changes[r] = false;
  }
  c.when_ready.assign(graph.ops.size(), false);
  for (uint32_t i = 0; i < graph.ops.size(); ++i) {
    const ReplayOp& op = graph.ops[i];
    if (change.launched_when_ready && host_changes[op.rank] &&
        change.launched_when_ready({*op.work, steps.ranks[op.rank]})) {
      c.when_ready[i] = true;
      const uint32_t first_backward = graph.ranks[op.rank].first_backward;
      if (change.ready_with_backward && first_backward != kNone) {
        c.waited_for[i] = first_backward;
      } else if (op.compute_before != kNone) {
        c.waited_for[i] = op.compute_before;
      }
      c.latency[i] = op.ready_latency_ns;
    }
  }
  if (change.no_host_gaps) {
    const std::vector<int64_t> pace = LaunchPace(graph, by_rank);
    for (uint32_t i = 0; i < graph.ops.size(); ++i) {
      const uint32_t r = graph.ops[i].rank;
      if (!host_changes[r]) continue;
      c.host_gap[i] = std::min(c.host_gap[i], pace[r]);
      c.after_sync[i] = std::min(c.after_sync[i], pace[r]);
    }
    for (uint32_t r = 0; r < graph.ranks.size(); ++r) {
      if (!host_changes[r]) continue;
      c.host_tail[r] = std::min(c.host_tail[r], pace[r]);
      c.tail_after_sync[r] = std::min(c.tail_after_sync[r], pace[r]);
    }
    for (const auto& [rank, like] : change.lateness_kept) {
      CutLikePeer(graph, steps, by_rank, pace, rank, like, c);
    }
  }
  return c;
}

// The nodes of the run: each piece's launch, start and end, and each
// group's completion. Node ids: 3 × piece + 0/1/2, then 3 × pieces + group.
enum Part : uint32_t { kLaunch = 0, kStart = 1, kEnd = 2 };

// What the time before a node is called on the critical path. kWork is the
// piece's own work, named by WorkWhat only if the path passes it: naming
// every node as it was timed made most of a large run's replay allocations.
enum class Between : uint8_t {
  kNothing,  // nothing worth naming
  kHostAfterSync,
  kHostBetweenLaunches,
  kHostBeforeFirst,
  kLaunchLatency,
  kGpuLatency,
  kWork,
};

// What a node's time came from, for the critical path: the node before it and
// what the time between is called.
struct Cause {
  uint32_t from = kNone;
  int64_t from_ns = 0;  // where the time between begins
  Between what = Between::kNothing;
  uint32_t piece = kNone;  // kWork: whose work
};

std::string WorkWhat(const WorkOf& of) {
  const ReplayWork& work = of.work;
  if (work.kind == WorkKind::kCopy) return "copies";
  if (work.kind == WorkKind::kComm) return "transfer of " + std::string(CommRoleName(work.role));
  const std::string& phase = of.phase();
  return phase.empty() ? "compute" : "compute in " + phase;
}

std::string BetweenText(const Cause& cause, const ReplayGraph& graph, const StepsReport& steps) {
  switch (cause.what) {
    case Between::kNothing:
      return "";
    case Between::kHostAfterSync:
      return "host after synchronizations";
    case Between::kHostBetweenLaunches:
      return "host between launches";
    case Between::kHostBeforeFirst:
      return "host before the first launch";
    case Between::kLaunchLatency:
      return "launch latency";
    case Between::kGpuLatency:
      return "GPU latency";
    case Between::kWork: {
      const ReplayOp& op = graph.ops[cause.piece];
      return WorkWhat({*op.work, steps.ranks[op.rank]});
    }
  }
  return "";
}

}  // namespace

bool NameMatches(std::string_view pattern, std::string_view name) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  // Greedy match with one backtracking point per '*'.
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && lower(pattern[p]) == lower(name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<ReplayOutcome> Replay(const ReplayGraph& graph, const StepsReport& steps,
                                    const ReplayChange& change) {
  const std::optional<Changed> changed = Apply(graph, steps, change);
  if (!changed) return std::nullopt;
  const Changed& c = *changed;
  const auto pieces = static_cast<uint32_t>(graph.ops.size());
  const uint32_t nodes = 3 * pieces + static_cast<uint32_t>(graph.groups.size());
  // The edges, then each node's in one array after the node before's (a vector per node was
  // millions of allocations a replay on a large run), in the order they were made.
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // from, to
  edges.reserve(6 * static_cast<size_t>(pieces));
  const auto edge = [&](uint32_t from, uint32_t to) { edges.emplace_back(from, to); };
  for (uint32_t i = 0; i < pieces; ++i) {
    const ReplayOp& op = graph.ops[i];
    const uint32_t synced_on = c.synced_on[i];
    const uint32_t waited_for = c.waited_for[i];
    if (!c.when_ready[i]) {
      if (op.launch_before != kNone) edge(3 * op.launch_before + kLaunch, 3 * i + kLaunch);
      if (synced_on != kNone) edge(3 * synced_on + kEnd, 3 * i + kLaunch);
    }
    edge(3 * i + kLaunch, 3 * i + kStart);
    if (op.stream_before != kNone) edge(3 * op.stream_before + kEnd, 3 * i + kStart);
    if (waited_for != kNone) edge(3 * waited_for + kEnd, 3 * i + kStart);
    if (op.group == kNone) {
      edge(3 * i + kStart, 3 * i + kEnd);
    } else {
      edge(3 * i + kStart, 3 * pieces + op.group);
      edge(3 * pieces + op.group, 3 * i + kEnd);
    }
  }
  std::vector<uint32_t> first_next(nodes + 1, 0);
  std::vector<uint32_t> waiting(nodes, 0);
  for (const auto& [from, to] : edges) {
    ++first_next[from + 1];
    ++waiting[to];
  }
  for (uint32_t node = 0; node < nodes; ++node) first_next[node + 1] += first_next[node];
  std::vector<uint32_t> next(edges.size());
  std::vector<uint32_t> filled(first_next.begin(), first_next.end() - 1);
  for (const auto& [from, to] : edges) next[filled[from]++] = to;

  std::vector<int64_t> at(nodes, INT64_MIN);
  std::vector<Cause> cause(nodes);
  // `from`: the node the time came from (kNone: the rank's step start, `rank`'s).
  const auto later = [&](uint32_t node, int64_t time, uint32_t from, Between what,
                         uint32_t rank_or_piece = 0) {
    if (time > at[node]) {
      at[node] = time;
      cause[node] = {from, from == kNone ? graph.ranks[rank_or_piece].start_ns : at[from], what,
                     what == Between::kWork ? rank_or_piece : kNone};
    }
  };
  std::deque<uint32_t> ready;
  for (uint32_t node = 0; node < nodes; ++node) {
    if (waiting[node] == 0) ready.push_back(node);
  }
  uint32_t done = 0;
  while (!ready.empty()) {
    const uint32_t node = ready.front();
    ready.pop_front();
    ++done;
    if (node < 3 * pieces) {
      const uint32_t i = node / 3;
      const ReplayOp& op = graph.ops[i];
      const uint32_t synced_on = c.synced_on[i];
      const uint32_t waited_for = c.waited_for[i];
      switch (node % 3) {
        case kLaunch:
          if (c.when_ready[i]) {
            later(node, graph.ranks[op.rank].start_ns, kNone, Between::kNothing, op.rank);
          } else if (synced_on != kNone) {
            const int64_t released =
                std::max(op.launch_before == kNone ? graph.ranks[op.rank].start_ns
                                                   : at[3 * op.launch_before + kLaunch],
                         at[3 * synced_on + kEnd]);
            later(node, released + c.after_sync[i], 3 * synced_on + kEnd, Between::kHostAfterSync);
          } else if (op.launch_before != kNone) {
            later(node, at[3 * op.launch_before + kLaunch] + c.host_gap[i],
                  3 * op.launch_before + kLaunch, Between::kHostBetweenLaunches);
          } else {
            later(node, graph.ranks[op.rank].start_ns + c.host_gap[i], kNone,
                  Between::kHostBeforeFirst, op.rank);
          }
          break;
        case kStart: {
          // Its latency is after whichever of these it waited for (replay_graph.h).
          later(node, std::max(at[3 * i + kLaunch], graph.ranks[op.rank].start_ns) + c.latency[i],
                3 * i + kLaunch, Between::kLaunchLatency);
          if (op.stream_before != kNone) {
            later(node, at[3 * op.stream_before + kEnd] + c.latency[i], 3 * op.stream_before + kEnd,
                  Between::kGpuLatency);
          }
          if (waited_for != kNone) {
            later(node, at[3 * waited_for + kEnd] + c.latency[i], 3 * waited_for + kEnd,
                  Between::kGpuLatency);
          }
          break;
        }
        case kEnd:
          if (op.group == kNone) {
            later(node, at[3 * i + kStart] + c.duration[i], 3 * i + kStart, Between::kWork, i);
          } else {
            later(node,
                  std::max(at[3 * i + kStart], at[3 * pieces + op.group] - op.before_last_end_ns),
                  3 * pieces + op.group, Between::kNothing);
          }
          break;
      }
    } else {
      const uint32_t g = node - 3 * pieces;
      for (const uint32_t member : graph.groups[g].members) {
        later(node, at[3 * member + kStart] + c.transfer[g], 3 * member + kStart, Between::kWork,
              member);
      }
    }
    for (uint32_t e = first_next[node]; e < first_next[node + 1]; ++e) {
      if (--waiting[next[e]] == 0) ready.push_back(next[e]);
    }
  }
  if (done != nodes) return std::nullopt;  // a cycle: the assumed edges contradict each other

  // Each rank's piece that ends last (the first of equals), in one pass: a pass per rank
  // over every rank's pieces was most of a 1,024-rank report's time.
  std::vector<uint32_t> last_of_rank(graph.ranks.size(), kNone);
  for (uint32_t i = 0; i < pieces; ++i) {
    uint32_t& last = last_of_rank[graph.ops[i].rank];
    if (last == kNone || at[3 * i + kEnd] > at[3 * last + kEnd]) last = i;
  }
  ReplayOutcome outcome;
  int64_t end = INT64_MIN;
  uint32_t last_node = kNone;
  std::string last_what;
  for (uint32_t r = 0; r < graph.ranks.size(); ++r) {
    const uint32_t i = last_of_rank[r];
    if (i != kNone && at[3 * i + kEnd] > end) {
      end = at[3 * i + kEnd];
      last_node = 3 * i + kEnd;
      last_what.clear();
      outcome.critical_rank = r;
    }
    const ReplayRank& rank = graph.ranks[r];
    if (rank.last_launch == kNone) continue;
    // The host's end of the step: after its last launch, or after the piece it waited for.
    int64_t host_end = at[3 * rank.last_launch + kLaunch] + c.host_tail[r];
    uint32_t host_from = 3 * rank.last_launch + kLaunch;
    std::string host_what = "host after the last launch";
    if (rank.tail_synced_on != kNone) {
      host_end = std::max(at[3 * rank.last_launch + kLaunch], at[3 * rank.tail_synced_on + kEnd]) +
                 c.tail_after_sync[r];
      host_from = 3 * rank.tail_synced_on + kEnd;
      host_what = "host after synchronizations";
    }
    if (host_end > end && (c.host_tail[r] > 0 || rank.tail_synced_on != kNone)) {
      end = host_end;
      last_node = host_from;
      last_what = host_what;
      outcome.critical_rank = r;
    }
  }
  outcome.step_ns = end - graph.start_ns;
  // The critical path, walked back from the end, time by what it was.
  std::map<std::string, int64_t> path;
  if (!last_what.empty()) path[last_what] += end - at[last_node];
  for (uint32_t node = last_node; node != kNone; node = cause[node].from) {
    const Cause& why = cause[node];
    if (why.what != Between::kNothing && at[node] > why.from_ns) {
      path[BetweenText(why, graph, steps)] += at[node] - why.from_ns;
    }
  }
  outcome.critical_path.assign(path.begin(), path.end());
  std::stable_sort(outcome.critical_path.begin(), outcome.critical_path.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return outcome;
}

}  // namespace vprof::reporter
