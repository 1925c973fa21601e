#include "reporter/cross_rank_gpu_time.h"

#include <algorithm>

#include "reporter/bandwidth.h"
#include "reporter/mean_ns.h"
#include "reporter/nccl_function.h"

namespace vprof::reporter {

void CrossRankGpuTime::Add(const CollectiveKernelSpan& span) {
  if (span.comm_size == 0 || span.end_ns < span.start_ns) return;
  const auto [entry, inserted] = pending_.try_emplace({span.key.comm_id, span.seq});
  Pending& pending = entry->second;
  if (inserted) {
    pending.key = span.key;
    pending.comm_size = span.comm_size;
    pending.last_start_ns = span.start_ns;
    pending.last_end_ns = span.end_ns;
    arrival_order_.push_back(entry->first);
  }
  // Ranks are told apart by a bit; in communicators of more than 64 ranks
  // the higher ranks are counted, not told apart (a rank sends one span per
  // collective).
  if (span.comm_rank < 64) {
    const uint64_t bit = uint64_t{1} << span.comm_rank;
    if (pending.ranks_seen & bit) return;  // a second span of one rank is no new arrival
    pending.ranks_seen |= bit;
  }
  ++pending.spans;
  pending.last_start_ns = std::max(pending.last_start_ns, span.start_ns);
  pending.last_end_ns = std::max(pending.last_end_ns, span.end_ns);
  if (pending.spans == pending.comm_size) Complete(entry);
  while (pending_.size() > kMaxPending || arrival_order_.size() > 2 * kMaxPending) GiveUpOldest();
}

void CrossRankGpuTime::Complete(std::map<Key, Pending>::iterator entry) {
  CrossRankTotals& totals = totals_[entry->second.key];
  const int64_t time_ns = entry->second.last_end_ns - entry->second.last_start_ns;
  ++totals.collectives;
  totals.total_ns += time_ns;
  totals.durations.Add(time_ns);
  pending_.erase(entry);
  while (!arrival_order_.empty() && !pending_.contains(arrival_order_.front())) {
    arrival_order_.pop_front();
  }
}

void CrossRankGpuTime::GiveUpOldest() {
  const Key oldest = arrival_order_.front();
  arrival_order_.pop_front();
  if (pending_.erase(oldest) > 0) ++given_up_;
}

void AddCollectiveGpuTime(const std::map<OpKey, CrossRankTotals>& totals, Report& report) {
  for (CommunicatorReport& comm : report.communicators) {
    for (OpReport& op : comm.ops) {
      const auto row = totals.find(OpKey{comm.comm_id, NcclFunctionFromName(op.op), op.bucket});
      if (row == totals.end() || row->second.collectives == 0 || op.count == 0) continue;
      const CrossRankTotals& time = row->second;
      op.collective_gpu_calls = time.collectives;
      op.collective_gpu_mean_ns = MeanNs(time.total_ns, time.collectives);
      op.collective_gpu_median_ns = time.durations.Median();
      // S of the row's mean collective, over the median cross-rank time.
      const uint64_t mean_size = op.total_bytes / op.count;
      const std::optional<double> algbw =
          AlgorithmBandwidthGBps(mean_size, op.collective_gpu_median_ns.value_or(0));
      if (algbw) op.collective_busbw_gbps = *algbw * op.bus_factor;
    }
  }
}

}  // namespace vprof::reporter
