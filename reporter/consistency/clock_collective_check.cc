#include "reporter/consistency/clock_collective_check.h"

#include <algorithm>
#include <cmath>

namespace vprof::reporter {
namespace {

// The share of residuals the error bound covers: high enough to hold nearly
// all collectives, low enough that one preempted rank does not set it.
constexpr double kBoundQuantile = 0.95;

// The middle value; the mean of the two middle ones for an even count.
double Median(std::vector<double> values) {
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + middle) + upper) / 2;
}

}  // namespace

void ResidualFit::Add(int64_t x_ns, int64_t y_ns) {
  if (count_ == 0) x_origin_ = x_ns;
  const double x = static_cast<double>(x_ns - x_origin_);
  ++count_;
  mean_x_ += (x - mean_x_) / static_cast<double>(count_);
  min_x_ = std::min(min_x_, x);
  max_x_ = std::max(max_x_, x);
  if (sample_.size() < kSampleSize) {
    sample_.emplace_back(x, static_cast<double>(y_ns));
    return;
  }
  // Algorithm R: every point so far is in the sample with the same chance.
  const uint64_t slot = std::uniform_int_distribution<uint64_t>(0, count_ - 1)(random_);
  if (slot < kSampleSize) sample_[slot] = {x, static_cast<double>(y_ns)};
}

std::optional<CollectiveClockEstimate> ResidualFit::Estimate() const {
  if (count_ == 0) return std::nullopt;
  std::vector<std::pair<double, double>> points = sample_;
  std::sort(points.begin(), points.end());
  const bool fit_drift = max_x_ - min_x_ >= static_cast<double>(kMinDriftSpanNs);
  // Each point with the one half the sample later: pairs far apart in time,
  // where the kernel-end jitter moves the slope least.
  const size_t half = points.size() / 2;
  std::vector<double> slopes;
  for (size_t i = 0; fit_drift && i + half < points.size() && half > 0; ++i) {
    const auto& [x0, y0] = points[i];
    const auto& [x1, y1] = points[i + half];
    if (x1 > x0) slopes.push_back((y1 - y0) / (x1 - x0));
  }
  const double slope = slopes.empty() ? 0.0 : Median(std::move(slopes));
  std::vector<double> at_mean;  // each point moved along the line to mean_x_
  at_mean.reserve(points.size());
  for (const auto& [x, y] : points) at_mean.push_back(y - slope * (x - mean_x_));
  const double offset = Median(at_mean);
  std::vector<double> residuals;
  residuals.reserve(at_mean.size());
  for (const double y : at_mean) residuals.push_back(std::abs(y - offset));
  const auto rank =
      static_cast<size_t>(std::ceil(kBoundQuantile * static_cast<double>(residuals.size())) - 1);
  std::nth_element(residuals.begin(), residuals.begin() + rank, residuals.end());
  CollectiveClockEstimate estimate;
  estimate.collectives = count_;
  estimate.offset_ns = std::llround(offset);
  estimate.at_ns = x_origin_ + std::llround(mean_x_);
  estimate.span_ns = std::llround(max_x_ - min_x_);
  if (fit_drift) estimate.drift_ns_per_s = slope * 1e9;
  estimate.residual_spread_ns = std::llround(residuals[rank]);
  estimate.error_bound_ns = std::max(estimate.residual_spread_ns, kKernelEndFloorNs);
  return estimate;
}

CollectiveClockCheck::CollectiveClockCheck(size_t processes, size_t reference)
    : reference_(reference), fits_(processes) {}

void CollectiveClockCheck::Add(size_t process, const CollectiveKernelSpan& span) {
  if (process >= fits_.size() || span.comm_size < 2) return;
  const auto [pending, inserted] = pending_.Get(span.key.comm_id, span.seq);
  if (inserted) pending->comm_size = span.comm_size;
  if (process == reference_) {
    pending->reference_end_ns = span.end_ns;
    for (const auto& [other, end_ns] : pending->waiting) {
      fits_[other].Add(span.end_ns, end_ns - span.end_ns);
    }
    waiting_spans_ -= pending->waiting.size();
    pending->waiting = {};
  } else if (pending->reference_end_ns) {
    fits_[process].Add(*pending->reference_end_ns, span.end_ns - *pending->reference_end_ns);
  } else {
    pending->waiting.emplace_back(process, span.end_ns);
    ++waiting_spans_;
  }
  if (++pending->spans >= pending->comm_size) {
    waiting_spans_ -= pending->waiting.size();
    pending_.Erase(span.key.comm_id, span.seq);
  }
  const auto forget = [this](Pending& given_up) { waiting_spans_ -= given_up.waiting.size(); };
  pending_.KeepAtMost(kMaxPending, forget);
  while (waiting_spans_ > kMaxWaitingSpans && pending_.GiveUpOldest(forget)) {
  }
}

std::vector<std::optional<CollectiveClockEstimate>> CollectiveClockCheck::Estimates() const {
  std::vector<std::optional<CollectiveClockEstimate>> estimates;
  for (size_t process = 0; process < fits_.size(); ++process) {
    estimates.push_back(process == reference_ ? std::nullopt : fits_[process].Estimate());
  }
  return estimates;
}

}  // namespace vprof::reporter
