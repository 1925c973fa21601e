#include "reporter/report/analysis_options.h"

#include <filesystem>
#include <string>
#include <utility>

#include "reporter/phases/phase_rules_file.h"
#include "reporter/steps/step_patterns.h"

namespace vprof::reporter {

OptionUse TakeAnalysisOption(ArgCursor& arg, AnalysisOptions& options) {
  if (arg.name() == "--step-pattern") {
    const std::optional<std::string> pattern = arg.Value();
    if (!pattern) return OptionUse::kBad;
    options.steps.patterns.push_back(*pattern);
    return OptionUse::kTaken;
  }
  if (arg.name() == "--phase-rules") {
    const std::optional<std::string> file = arg.Value();
    if (!file) return OptionUse::kBad;
    PhaseRulesLoad load = LoadPhaseRulesFile(*file);
    if (!load.rules) {
      arg.Complain("bad --phase-rules file: " + load.error);
      return OptionUse::kBad;
    }
    options.phase_rules = std::move(*load.rules);
    // Absolute: vprof-slurm passes it on to the report steps of other nodes.
    options.phase_rules_file = std::filesystem::absolute(*file).string();
    return OptionUse::kTaken;
  }
  if (arg.name() == "--warmup") {
    const std::optional<uint32_t> warmup = arg.CountValue();
    if (!warmup) return OptionUse::kBad;
    options.steps.warmup_steps = *warmup;
    return OptionUse::kTaken;
  }
  return OptionUse::kNotMine;
}

bool CheckAnalysisOptions(ArgCursor& arg, const AnalysisOptions& options) {
  if (const std::optional<std::string> error = StepPatternError(options.steps.patterns)) {
    arg.Complain(*error);
    return false;
  }
  return true;
}

std::vector<std::string> AnalysisArguments(const AnalysisOptions& options) {
  std::vector<std::string> arguments;
  for (const std::string& pattern : options.steps.patterns) {
    arguments.insert(arguments.end(), {"--step-pattern", pattern});
  }
  arguments.insert(arguments.end(), {"--warmup", std::to_string(options.steps.warmup_steps)});
  if (!options.phase_rules_file.empty()) {
    arguments.insert(arguments.end(), {"--phase-rules", options.phase_rules_file});
  }
  return arguments;
}

}  // namespace vprof::reporter
