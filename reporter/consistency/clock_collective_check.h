// Checks the processes' clocks against each other with the collectives they
// ran together. A collective's kernels end within a few µs of each other on
// all its ranks (the last data exchange releases them all), so for a process
// p and a reference process, end_p − end_reference over their matched
// collectives is p's clock offset from the reference on the report's clock:
// near 0 when the alignment is right. A robust line of it over time gives
// the drift; the spread of the differences around that line the error bound.
// Robust, because some kernel ends are late by far more than the clocks are
// off (a rank preempted, a kernel that ends after a long wait, a mismatched
// pair): a least-squares line lets a few of those set the drift, and on one
// host gave drifts of 1.6 ms/s that no clock has (bench/RESULTS.md).
//
// Memory is constant per process (a bounded uniform random sample of the
// points, which the line is fitted to) plus a capped table of the
// collectives still waiting for the reference's span: spans are never kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "reporter/collectives/cross_rank_gpu_time.h"
#include "reporter/collectives/pending_collectives.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// How far apart the ranks' kernel ends of one collective are at least: the
// one-way latency of the last exchange (NVLink or the network), which no
// number of collectives averages away. The error bound is never below it.
inline constexpr int64_t kKernelEndFloorNs = 2000;

// How long the matched collectives must span for a drift to be fitted. Over
// shorter runs, which rank's kernel ends last can change from one phase of
// the workload to the next, and such a step of ±15 µs over 0.7 s reads as a
// drift of 100 µs/s (DDP on 2 × H200, bench/RESULTS.md) where clocks drift by
// a few µs/s at most: the drift matters, and can be told, only for long runs.
inline constexpr int64_t kMinDriftSpanNs = 30'000'000'000;

// A line through the differences (y, ns) over time (x, ns), fitted to a
// bounded uniform sample of the points: the slope is the median of the slopes
// between points half the sample apart in time (a Theil–Sen estimator, which
// up to half the points can be wrong without moving), the offset the median
// distance of the points from a line of that slope.
class ResidualFit {
 public:
  static constexpr size_t kSampleSize = 1024;

  void Add(int64_t x_ns, int64_t y_ns);
  // None without a point.
  std::optional<CollectiveClockEstimate> Estimate() const;

 private:
  uint64_t count_ = 0;
  int64_t x_origin_ = 0;  // the first x: values stay small (double precision)
  double mean_x_ = 0;     // where the offset is given
  double min_x_ = 0, max_x_ = 0;
  std::vector<std::pair<double, double>> sample_;
  std::minstd_rand random_;  // default seed: the same report every run
};

class CollectiveClockCheck {
 public:
  // Collectives waiting for the reference's span, and other processes' spans
  // held until it comes, at most: beyond either the oldest are given up.
  static constexpr size_t kMaxPending = 1 << 14;
  static constexpr size_t kMaxWaitingSpans = 1 << 20;

  // `processes`: how many sources send spans (indexes 0..processes−1);
  // `reference`: the one the others are compared with.
  CollectiveClockCheck(size_t processes, size_t reference);

  // One span of `process`, on the report's clock.
  void Add(size_t process, const CollectiveKernelSpan& span);

  // Per process, indexed like the sources; none for the reference and for
  // processes that shared no collective with it.
  std::vector<std::optional<CollectiveClockEstimate>> Estimates() const;

 private:
  struct Pending {
    uint32_t comm_size = 0;
    uint32_t spans = 0;
    std::optional<int64_t> reference_end_ns;
    std::vector<std::pair<size_t, int64_t>> waiting;  // (process, end) before the reference's
  };

  size_t reference_;
  std::vector<ResidualFit> fits_;
  PendingCollectives<Pending> pending_;
  size_t waiting_spans_ = 0;  // over all pending entries
};

}  // namespace vprof::reporter
