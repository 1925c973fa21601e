// A user's NVTX phase rules file (vprof report --phase-rules FILE): one rule
// a line, "pattern = phase", e.g. "gen_rollout = rollout execution". Blank
// lines and lines starting with '#' are skipped; spaces around the pattern
// and the phase are dropped. The rules extend the defaults (phase_rules.h):
// a name matching both a user pattern and a default one goes to the longer
// pattern, to the user's when they are equally long, so a user rule with a
// default's pattern replaces it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reporter/phases/phase_rules.h"

namespace vprof::reporter {

struct PhaseRulesLoad {
  std::optional<std::vector<UserPhaseRule>> rules;  // none on error
  std::string error;  // "FILE:LINE: what was expected"; empty with rules
};

PhaseRulesLoad LoadPhaseRulesFile(const std::string& path);

// The same from text already read; `source` names it in errors.
PhaseRulesLoad ParsePhaseRules(const std::string& text, const std::string& source);

}  // namespace vprof::reporter
