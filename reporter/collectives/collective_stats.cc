#include "reporter/collectives/collective_stats.h"

#include <algorithm>

#include "reporter/base/saturating_ns.h"
#include "reporter/collectives/collective_timing.h"

namespace vprof::reporter {

void CollectiveStats::AddMatched(const MatchedCollective& collective) {
  const CollectiveTiming timing = MeasureCollective(collective.arrivals);
  const uint32_t last_process = collective.arrivals[timing.last_arrival].process;

  OpStats& op = ops_[OpKey{collective.comm_id, collective.op, BucketOf(collective.size_bytes)}];
  op.comm_size = collective.comm_size;
  ++op.count;
  op.total_time_ns = SaturatingAdd(op.total_time_ns, timing.time_ns);
  op.total_bytes += collective.size_bytes;
  op.total_arrival_skew_ns = SaturatingAdd(op.total_arrival_skew_ns, timing.arrival_skew_ns);
  op.max_arrival_skew_ns = std::max(op.max_arrival_skew_ns, timing.arrival_skew_ns);
  op.total_exit_skew_ns = SaturatingAdd(op.total_exit_skew_ns, timing.exit_skew_ns);
  op.max_exit_skew_ns = std::max(op.max_exit_skew_ns, timing.exit_skew_ns);
  ++op.last_arrivals[last_process];

  if (collective.op == NcclFunction::kSendRecvPair) return;
  for (const Arrival& arrival : collective.arrivals) {
    ParticipantStats& participant = participants_[arrival.process];
    ++participant.collectives;
    participant.total_lateness_ns = SaturatingAdd(
        participant.total_lateness_ns, SaturatingSub(arrival.enter_ns, timing.first_enter_ns));
  }
  ParticipantStats& last = participants_[last_process];
  ++last.last_arrivals;
  last.total_lead_ns = SaturatingAdd(last.total_lead_ns, timing.last_lead_ns);
  if (timing.last_lead_ns > last.longest_lead.lead_ns) {
    last.longest_lead = {timing.last_lead_ns, collective.arrivals[timing.last_arrival].enter_ns,
                         collective.comm_id, collective.op, collective.size_bytes};
  }
}

void CollectiveStats::AddTeardownCall(uint64_t comm_id, NcclFunction function,
                                      int64_t duration_ns) {
  teardown_[{comm_id, function}].Add(duration_ns);
}

void OpStats::Merge(const OpStats& other) {
  comm_size = other.comm_size;
  count += other.count;
  total_time_ns = SaturatingAdd(total_time_ns, other.total_time_ns);
  total_bytes += other.total_bytes;
  total_arrival_skew_ns = SaturatingAdd(total_arrival_skew_ns, other.total_arrival_skew_ns);
  max_arrival_skew_ns = std::max(max_arrival_skew_ns, other.max_arrival_skew_ns);
  total_exit_skew_ns = SaturatingAdd(total_exit_skew_ns, other.total_exit_skew_ns);
  max_exit_skew_ns = std::max(max_exit_skew_ns, other.max_exit_skew_ns);
  for (const auto& [process, times] : other.last_arrivals) last_arrivals[process] += times;
}

void ParticipantStats::Merge(const ParticipantStats& other) {
  collectives += other.collectives;
  last_arrivals += other.last_arrivals;
  total_lateness_ns = SaturatingAdd(total_lateness_ns, other.total_lateness_ns);
  total_lead_ns = SaturatingAdd(total_lead_ns, other.total_lead_ns);
  if (other.longest_lead.lead_ns > longest_lead.lead_ns) longest_lead = other.longest_lead;
}

void LifecycleStats::Add(int64_t duration_ns) {
  ++calls;
  total_ns = SaturatingAdd(total_ns, duration_ns);
  max_ns = std::max(max_ns, duration_ns);
}

void LifecycleStats::Merge(const LifecycleStats& other) {
  calls += other.calls;
  total_ns = SaturatingAdd(total_ns, other.total_ns);
  max_ns = std::max(max_ns, other.max_ns);
}

}  // namespace vprof::reporter
