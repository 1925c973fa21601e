#include "reporter/phases/phase_rules.h"

#include <array>

namespace vprof::reporter {
namespace {

// vime's wall-clock timer names (perf/<name>_time) first, then the names
// PyTorch users give their ranges (and torch.optim's "Optimizer.step#…").
constexpr std::array kRules = {
    PhaseRule{"train_wait", "rollout wait"},
    PhaseRule{"rollout", "rollout execution"},
    PhaseRule{"log_probs", "logprob"},
    PhaseRule{"ref_log_probs", "logprob"},
    PhaseRule{"teacher_log_probs", "logprob"},
    PhaseRule{"actor_train", "train"},
    PhaseRule{"train", "train"},
    PhaseRule{"update_weights", "weight sync"},
    PhaseRule{"data_preprocess", "data"},
    PhaseRule{"save_model", "checkpoint"},
    PhaseRule{"sleep", "offload"},
    PhaseRule{"wake_up", "offload"},
    PhaseRule{"forward", "forward"},
    PhaseRule{"backward", "backward"},
    PhaseRule{"optimizer", "optimizer"},
    PhaseRule{"optimizer_step", "optimizer"},
    PhaseRule{"communication", "communication"},
    PhaseRule{"step", "step"},
};

constexpr std::string_view kSeparators = " :/._-#[(";

// The user's rules while a PhaseRulesScope lives.
const std::vector<UserPhaseRule>* active_user_rules = nullptr;

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool Matches(std::string_view name, std::string_view pattern) {
  if (name.size() < pattern.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (LowerAscii(name[i]) != pattern[i]) return false;
  }
  return name.size() == pattern.size() ||
         kSeparators.find(name[pattern.size()]) != std::string_view::npos;
}

// Whether `written` (after the convention's prefix) names `phase`: case
// ignored, '_' for ' '.
bool NamesPhase(std::string_view written, std::string_view phase) {
  if (written.size() != phase.size()) return false;
  for (size_t i = 0; i < phase.size(); ++i) {
    const char c = written[i] == '_' ? ' ' : LowerAscii(written[i]);
    if (c != LowerAscii(phase[i])) return false;
  }
  return true;
}

// Every rule, the user's first, as views.
template <typename Visit>
void ForEachRule(Visit visit) {
  if (active_user_rules) {
    for (const UserPhaseRule& rule : *active_user_rules) visit(PhaseRule{rule.pattern, rule.phase});
  }
  for (const PhaseRule& rule : kRules) visit(rule);
}

std::optional<PhaseRule> ConventionRule(std::string_view written_phase) {
  std::optional<PhaseRule> named;
  ForEachRule([&](const PhaseRule& rule) {
    if (!named && NamesPhase(written_phase, rule.phase)) {
      named = PhaseRule{kPhaseConventionPrefix, rule.phase};
    }
  });
  return named;
}

}  // namespace

std::span<const PhaseRule> PhaseRules() { return kRules; }

std::optional<PhaseRule> MatchPhaseRule(std::string_view range_name) {
  if (Matches(range_name.substr(0, kPhaseConventionPrefix.size()), kPhaseConventionPrefix)) {
    return ConventionRule(range_name.substr(kPhaseConventionPrefix.size()));
  }
  std::optional<PhaseRule> best;
  ForEachRule([&](const PhaseRule& rule) {
    if (Matches(range_name, rule.pattern) &&
        (!best || rule.pattern.size() > best->pattern.size())) {
      best = rule;
    }
  });
  return best;
}

PhaseRulesScope::PhaseRulesScope(std::vector<UserPhaseRule> rules)
    : rules_(std::move(rules)), previous_(active_user_rules) {
  active_user_rules = &rules_;
}

PhaseRulesScope::~PhaseRulesScope() { active_user_rules = previous_; }

}  // namespace vprof::reporter
