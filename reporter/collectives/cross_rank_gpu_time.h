// The GPU time of a collective across its ranks: from the moment the last
// rank's kernel started to the moment the last rank's kernel ended. A rank's
// own kernel time also holds the time it waited inside the kernel for the
// others to arrive, which at a few µs per small collective is most of it; the
// cross-rank time leaves that wait out, as nccl-tests' timing of a loop of
// calls does, so bus bandwidth per size holds for small messages too.
//
// Each rank's linked kernel span arrives from its own trace (NcclKernelLinker
// emits it once the call is linked and retired); a collective is complete when
// every rank of its communicator has sent one, and only then counted. Spans
// wait in a table keyed by (communicator, seq); a rank without GPU records
// would leave every collective of its communicators waiting, so the table is
// capped and the oldest entries are given up (and counted) beyond the cap.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "reporter/base/duration_histogram.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/collectives/pending_collectives.h"

namespace vprof::reporter {

// One rank's kernels for one ungrouped collective call, on a common clock
// (the process's clock offset added).
struct CollectiveKernelSpan {
  OpKey key;  // comm_id, op, size bucket: the communicator table's row
  uint64_t seq = 0;
  uint32_t comm_rank = 0;
  uint32_t comm_size = 0;
  int64_t start_ns = 0;  // the first kernel's start
  int64_t end_ns = 0;    // the last kernel's end
};

// Where linked collective kernel spans go, one call per span.
using CollectiveSpanSink = std::function<void(const CollectiveKernelSpan&)>;

struct CrossRankTotals {
  uint64_t collectives = 0;  // complete: every rank's span seen
  int64_t total_ns = 0;      // sum of (last end − last start)
  // The same times, for the median: a row's first calls (connection setup)
  // and calls stretched by other work weigh on the mean, not on the median.
  DurationHistogram durations;
};

class CrossRankGpuTime {
 public:
  // Entries held at most before the oldest are given up.
  static constexpr size_t kMaxPending = 1 << 16;

  void Add(const CollectiveKernelSpan& span);

  const std::map<OpKey, CrossRankTotals>& totals() const { return totals_; }
  // Collectives given up (cap) or left incomplete at the end.
  uint64_t incomplete() const { return given_up_ + pending_.size(); }

 private:
  struct Pending {
    OpKey key;
    uint32_t comm_size = 0;
    uint64_t ranks_seen = 0;  // distinct comm ranks, by a bit each below 64
    uint32_t spans = 0;
    int64_t last_start_ns = 0;
    int64_t last_end_ns = 0;
  };

  PendingCollectives<Pending> pending_;
  std::map<OpKey, CrossRankTotals> totals_;
  uint64_t given_up_ = 0;
};

}  // namespace vprof::reporter
