// One measured full step as a graph the replay can run again: each rank's
// GPU work (RankStepReport::replay) with what each piece waited for, the
// host threads that launched it, and the collectives that join the ranks.
//
// What the trace records is used as it is: launch times, stream order,
// durations, which members took part in each collective. What the light
// capture does not record, the graph assumes from timing, and counts:
// - a piece that started later than its launch and its stream allowed
//   waited for the piece on another stream of its rank that ended just
//   before (within kEdgeSlackNs): a stream or event wait;
// - a host thread whose next launch came long after its previous one and
//   soon after a piece ended (within a quarter of the gap, or kEdgeSlackNs)
//   that ran past that previous launch waited for that piece: a
//   synchronization (its own, or another thread's it waited on), taken to
//   begin at the previous launch;
// - a collective's transfer runs from its last member's start to its last
//   member's end; a member's kernel ends that long after the last member
//   arrived, less how much before the last end it ended;
// - a piece moved to start "when ready" (replay_change.h) needs the compute
//   its rank launched last before it (in place of any wait seen), keeping
//   only its latency after the last of what it waited for; a gradient
//   bucket, the share of its rank's backward compute its place among the
//   step's buckets says (the k-th of N: the first k/N), where that ended
//   sooner.
// A start later than all of these explain, past kEdgeSlackNs, is counted as
// unexplained and replayed as a wait for the piece of another stream of its
// rank that ended last before it (a wait forwarded by a slow host thread),
// or, where none did, as a fixed latency after what it was ready for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// How close in time two records must be for one to have waited for the
// other: a GPU starts queued work within microseconds, but a loaded host
// thread (the CPU stand-ins' streams) takes up to a couple of hundred.
inline constexpr int64_t kEdgeSlackNs = 200'000;

// No predecessor.
inline constexpr uint32_t kNone = UINT32_MAX;

struct ReplayOp {
  uint32_t rank = 0;  // index into StepsReport::ranks
  const ReplayWork* work = nullptr;
  int64_t duration_ns = 0;
  uint32_t stream_before = kNone;  // the piece before it on its stream
  uint32_t waited_for = kNone;     // an assumed stream or event wait
  // The piece its host thread launched before it; for a thread's first launch,
  // the rank's launch before it (of another thread, that woke it).
  uint32_t launch_before = kNone;
  uint32_t synced_on = kNone;  // an assumed host synchronization before its launch
  int64_t host_gap_ns = 0;     // its launch after the previous one's (or after the step's start)
  int64_t host_after_sync_ns = 0;  // with synced_on: its launch after that piece's end
  int64_t latency_ns = 0;          // its start after all it waited for
  uint32_t group = kNone;          // its collective, into ReplayGraph::groups
  int64_t before_last_end_ns = 0;  // a member's end before the collective's last end
  // The compute piece of its rank launched last before it among those that
  // ended before it started: what a piece launched "when ready" waits for
  // where no wait was seen (its inputs, assumed to be that compute's output,
  // as a gradient bucket's are).
  uint32_t compute_before = kNone;
  // Its start after the last of its launch, its stream, its wait and
  // compute_before as measured: the latency it keeps when moved "when ready".
  int64_t ready_latency_ns = 0;
};

// A collective whose every member's kernel is in the step.
struct ReplayGroup {
  std::vector<uint32_t> members;  // into ReplayGraph::ops
  // From the last member's start to the last member's end: the transfer once
  // every member has arrived (on the report's clock, across ranks).
  int64_t transfer_ns = 0;
};

// A rank's part of the step.
struct ReplayRank {
  int64_t start_ns = 0;  // the step window's, on the report's clock
  int64_t end_ns = 0;
  // The host's time past its last launch: the step's range end after it;
  // where the host waited for a piece first (as a launch may, above), that
  // piece and the host's time after its end.
  int64_t host_tail_ns = 0;
  uint32_t last_launch = kNone;  // of the thread that launched last
  uint32_t tail_synced_on = kNone;
  int64_t tail_after_sync_ns = 0;
  uint32_t first_backward = kNone;  // its first backward compute piece, in launch order
};

struct ReplayGraph {
  uint32_t step = 0;       // index among the steps found
  uint32_t full_step = 0;  // index into StepsReport::full_steps
  std::vector<ReplayOp> ops;
  std::vector<ReplayGroup> groups;
  std::vector<ReplayRank> ranks;  // by StepsReport::ranks index
  int64_t start_ns = 0;           // the earliest rank's window start
  int64_t measured_ns = 0;        // the full step, earliest start to latest end
  // The assumptions, counted.
  uint64_t assumed_waits = 0;
  uint64_t assumed_syncs = 0;
  uint64_t unexplained_starts = 0;
  int64_t unexplained_ns = 0;
  uint64_t collectives_apart = 0;  // pieces of a collective not every member's step held
};

// Full step `index` (into StepsReport::full_steps) as a graph; none when a
// rank did not keep that step's work for the replay.
std::optional<ReplayGraph> BuildReplayGraph(const StepsReport& steps, size_t index);

}  // namespace vprof::reporter
