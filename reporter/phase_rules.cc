#include "reporter/phase_rules.h"

#include <array>

namespace vprof::reporter {
namespace {

// vime's wall-clock timer names (perf/<name>_time) first, then the names
// PyTorch users give their ranges (and torch.optim's "Optimizer.step#…").
constexpr std::array kRules = {
    PhaseRule{"train_wait", "rollout wait"},
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
    PhaseRule{"step", "step"},
};

constexpr std::string_view kSeparators = " :/._-#[(";

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool Matches(std::string_view name, std::string_view pattern) {
  if (name.size() < pattern.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (LowerAscii(name[i]) != pattern[i]) return false;
  }
  return name.size() == pattern.size() ||
         kSeparators.find(name[pattern.size()]) != std::string_view::npos;
}

}  // namespace

std::span<const PhaseRule> PhaseRules() { return kRules; }

std::optional<PhaseRule> MatchPhaseRule(std::string_view range_name) {
  std::optional<PhaseRule> best;
  for (const PhaseRule& rule : kRules) {
    if (Matches(range_name, rule.pattern) &&
        (!best || rule.pattern.size() > best->pattern.size())) {
      best = rule;
    }
  }
  return best;
}

}  // namespace vprof::reporter
