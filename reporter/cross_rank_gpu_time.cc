#include "reporter/cross_rank_gpu_time.h"

#include <algorithm>

#include "reporter/bandwidth.h"
#include "reporter/mean_ns.h"
#include "reporter/nccl_function.h"

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
