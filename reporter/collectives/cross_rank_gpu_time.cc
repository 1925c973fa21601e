#include "reporter/collectives/cross_rank_gpu_time.h"

#include <algorithm>

namespace vprof::reporter {

void CrossRankGpuTime::Add(const CollectiveKernelSpan& span) {
  if (span.comm_size == 0 || span.end_ns < span.start_ns) return;
  const auto [pending, inserted] = pending_.Get(span.key.comm_id, span.seq);
  if (inserted) {
    pending->key = span.key;
    pending->comm_size = span.comm_size;
    pending->last_start_ns = span.start_ns;
    pending->last_end_ns = span.end_ns;
  }
  // Ranks are told apart by a bit; in communicators of more than 64 ranks
  // the higher ranks are counted, not told apart (a rank sends one span per
  // collective).
  if (span.comm_rank < 64) {
    const uint64_t bit = uint64_t{1} << span.comm_rank;
    if (pending->ranks_seen & bit) return;  // a second span of one rank is no new arrival
    pending->ranks_seen |= bit;
  }
  ++pending->spans;
  pending->last_start_ns = std::max(pending->last_start_ns, span.start_ns);
  pending->last_end_ns = std::max(pending->last_end_ns, span.end_ns);
  if (pending->spans == pending->comm_size) {
    CrossRankTotals& totals = totals_[pending->key];
    const int64_t time_ns = pending->last_end_ns - pending->last_start_ns;
    ++totals.collectives;
    totals.total_ns += time_ns;
    totals.durations.Add(time_ns);
    pending_.Erase(span.key.comm_id, span.seq);
  }
  pending_.KeepAtMost(kMaxPending, [this](Pending&) { ++given_up_; });
}

}  // namespace vprof::reporter
