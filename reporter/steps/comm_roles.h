// What each communication kernel of a run's measured steps was for, from
// evidence only: the phase it was launched in, its function and size, and
// what its communicator did over every rank's measured steps. One table of
// rules (comm_roles.cc), the first that holds names the role; where none
// holds, the role is "unclassified", never a guess.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// Collectives of at most this many bytes (a rank's share, as the call
// passed it) outside forward and backward are metrics: losses, norms,
// counters gathered once a step.
inline constexpr uint64_t kMetricsMaxBytes = 64 * 1024;

// "gradient buckets", "weight sync", "sharded data parallel",
// "tensor parallel", "pipeline", "metrics", "unclassified".
std::string_view CommRoleName(CommRole role);
// Before a noun: "gradient-bucket", "weight-sync", "sharded-data-parallel",
// "tensor-parallel", "pipeline", "metric", "unclassified".
std::string_view CommRoleAdjective(CommRole role);
// The name's role; kUnclassified for any other name.
CommRole CommRoleNamed(std::string_view name);

// What a communicator did in the measured steps of every rank: the counts
// the rules read, and the per-step count that "every layer" needs.
struct CommunicatorCalls {
  uint64_t comm_id = 0;
  uint64_t reductions_in_forward = 0;  // all-reduce and reduce-scatter
  uint64_t gathers_in_forward = 0;     // all-gather
  uint64_t reductions_in_backward = 0;
  uint64_t gathers_in_backward = 0;
  uint64_t other_calls = 0;  // outside forward and backward
  uint64_t rank_steps = 0;   // (rank, measured step) pairs that launched any of its kernels
  // The most forward collectives one rank launched on it in one step.
  uint64_t most_forward_per_step = 0;
};

class CommRoles {
 public:
  // From every rank's measured steps.
  static CommRoles Of(const StepsReport& steps);

  CommRole RoleOf(const RankStepsReport& rank, const StepCollective& collective) const;
  // By communicator, then role: what decided each role the communicator's
  // kernels got.
  const std::vector<CommRoleEvidence>& evidence() const { return evidence_; }

 private:
  const CommunicatorCalls* UseOf(uint64_t comm_id) const;

  std::vector<CommunicatorCalls> uses_;  // by comm_id
  std::vector<CommRoleEvidence> evidence_;
};

}  // namespace vprof::reporter
