// Which training phase an NVTX range stands for, decided by its name: the one
// table of name patterns (phase_rules.cc) that the "Phases (NVTX)" section
// and the step analysis use, extended by a user's rules file while a
// PhaseRulesScope lives (phase_rules_file.h). A name matches a pattern,
// ignoring ASCII case, when it equals the pattern or starts with it followed
// by a separator (one of space : / . _ - # [ ( ), so "forward" matches
// "Forward", "forward_pass" and "forward #3" but not "forwarded". When several
// patterns match, the longest wins ("train_wait" is rollout wait, not train);
// of equally long ones, the user's.
//
// The naming convention for new code needs no rule: "vprof.phase:<phase>",
// where <phase> is any phase a rule names, with '_' or ' ' between words
// ("vprof.phase:weight_sync", "vprof.phase:forward").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vprof::reporter {

// The NVTX domain whose ranges are NCCL's own: communication, never a phase.
inline constexpr std::string_view kNcclNvtxDomain = "NCCL";

inline constexpr std::string_view kPhaseConventionPrefix = "vprof.phase:";

struct PhaseRule {
  std::string_view pattern;  // lower case
  std::string_view phase;
};

// A rule from a user's rules file; `pattern` lower case.
struct UserPhaseRule {
  std::string pattern;
  std::string phase;
  auto operator<=>(const UserPhaseRule&) const = default;
};

// The default rules, in table order.
std::span<const PhaseRule> PhaseRules();

// The rule `range_name` matches, or none. The views stay valid while the
// rules do: for ever for the defaults, while its scope lives for a user rule.
std::optional<PhaseRule> MatchPhaseRule(std::string_view range_name);

// While it lives, MatchPhaseRule uses `rules` next to the defaults. Made once
// per report, before any trace is read.
class PhaseRulesScope {
 public:
  explicit PhaseRulesScope(std::vector<UserPhaseRule> rules);
  ~PhaseRulesScope();
  PhaseRulesScope(const PhaseRulesScope&) = delete;
  PhaseRulesScope& operator=(const PhaseRulesScope&) = delete;

 private:
  std::vector<UserPhaseRule> rules_;
  const std::vector<UserPhaseRule>* previous_;
};

}  // namespace vprof::reporter
