// Running totals of matched collectives, per communicator, op and size
// bucket, per participating process, and of communicator teardown calls.
// Folding each collective in as it is matched keeps memory independent of
// trace length.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/collectives/size_bucket.h"

namespace vprof::reporter {

struct OpKey {
  uint64_t comm_id = 0;
  NcclFunction op = NcclFunction::kUnknown;
  SizeBucket bucket;
  auto operator<=>(const OpKey&) const = default;
};

struct OpStats {
  uint32_t comm_size = 0;
  uint64_t count = 0;
  int64_t total_time_ns = 0;
  uint64_t total_bytes = 0;  // sum of S
  int64_t total_arrival_skew_ns = 0;
  int64_t max_arrival_skew_ns = 0;
  int64_t total_exit_skew_ns = 0;
  int64_t max_exit_skew_ns = 0;
  std::map<uint32_t, uint64_t> last_arrivals;  // process index → times it entered last

  // Adds totals gathered elsewhere; their process indexes must be this one's.
  void Merge(const OpStats& other);
};

// The collective in which a process, arriving last, held the others longest.
struct LeadExample {
  int64_t lead_ns = 0;   // CollectiveTiming::last_lead_ns
  int64_t enter_ns = 0;  // the late process's enter, on the report's clock
  uint64_t comm_id = 0;
  NcclFunction op = NcclFunction::kUnknown;
  uint64_t size_bytes = 0;
};

// One process's part in matched collectives (send/recv pairs excluded).
struct ParticipantStats {
  uint64_t collectives = 0;
  uint64_t last_arrivals = 0;
  int64_t total_lateness_ns = 0;  // sum of (own enter − first enter)
  // Over the collectives it entered last: the sum of its lead, the time the others waited
  // for it alone (the straggler candidate's figure), and the longest one.
  int64_t total_lead_ns = 0;
  LeadExample longest_lead;

  void Merge(const ParticipantStats& other);
};

// Calls that create or tear down a communicator.
struct LifecycleStats {
  uint64_t calls = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;

  void Add(int64_t duration_ns);
  void Merge(const LifecycleStats& other);
};

class CollectiveStats {
 public:
  explicit CollectiveStats(size_t processes) : participants_(processes) {}

  void AddMatched(const MatchedCollective& collective);
  void AddTeardownCall(uint64_t comm_id, NcclFunction function, int64_t duration_ns);

  // Totals another CollectiveStats gathered (a node summary's), with process
  // indexes already translated to this one's. Every total is a sum, a count or
  // a maximum, so the order of merging does not matter.
  void MergeOp(const OpKey& key, const OpStats& op) { ops_[key].Merge(op); }
  void MergeParticipant(uint32_t process, const ParticipantStats& participant) {
    participants_[process].Merge(participant);
  }
  void MergeTeardown(uint64_t comm_id, NcclFunction function, const LifecycleStats& calls) {
    teardown_[{comm_id, function}].Merge(calls);
  }

  const std::map<OpKey, OpStats>& ops() const { return ops_; }
  // Indexed by process.
  const std::vector<ParticipantStats>& participants() const { return participants_; }
  const std::map<std::pair<uint64_t, NcclFunction>, LifecycleStats>& teardown() const {
    return teardown_;
  }

 private:
  std::map<OpKey, OpStats> ops_;
  std::vector<ParticipantStats> participants_;
  std::map<std::pair<uint64_t, NcclFunction>, LifecycleStats> teardown_;  // by (comm_id, call)
};

}  // namespace vprof::reporter
