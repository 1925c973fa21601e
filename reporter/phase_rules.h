// Which training phase an NVTX range stands for, decided by its name: the one
// table of name patterns (phase_rules.cc) that the "Phases (NVTX)" section
// uses. A name matches a pattern, ignoring ASCII case, when it equals the
// pattern or starts with it followed by a separator (one of space : / . _ - #
// [ ( ), so "forward" matches "Forward", "forward_pass" and "forward #3" but
// not "forwarded". When several patterns match, the longest wins
// ("train_wait" is rollout wait, not train).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace vprof::reporter {

// The NVTX domain whose ranges are NCCL's own: communication, never a phase.
inline constexpr std::string_view kNcclNvtxDomain = "NCCL";

struct PhaseRule {
  std::string_view pattern;  // lower case
  std::string_view phase;
};

// Every rule, in table order.
std::span<const PhaseRule> PhaseRules();

// The rule `range_name` matches, or none.
std::optional<PhaseRule> MatchPhaseRule(std::string_view range_name);

}  // namespace vprof::reporter
