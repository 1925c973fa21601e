// Which NVTX ranges are training steps: ECMAScript regular expressions
// matched anywhere in the range's name (std::regex_search), --step-pattern's
// or the defaults.
//
// The defaults are anchored to the whole name so that names which merely
// contain "step" (optimizer.step, lr_scheduler.step, step_time, steps) are not
// steps:
//   ^(vprof\.)?([Tt]rain(ing)?[_ ]?)?[Ss]tep([ _#:-]?[0-9]+)?$
//     "step", "Step 3", "step_12", "train_step", "training step", "vprof.step"
//   ^ProfilerStep#[0-9]+$
//     what torch.profiler.profile().step() names each step
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace vprof::reporter {

std::vector<std::string> DefaultStepPatterns();

// Why `patterns` cannot be used: the first that is not a valid ECMAScript
// regular expression, named; none when all are.
std::optional<std::string> StepPatternError(const std::vector<std::string>& patterns);

class StepPatterns {
 public:
  // Empty: the defaults. Invalid patterns match nothing (StepPatternError
  // says which).
  explicit StepPatterns(std::vector<std::string> patterns = {});

  bool Matches(std::string_view range_name) const;
  // The patterns, as the report names them: "A | B".
  std::string Description() const;

 private:
  std::vector<std::string> sources_;
  std::vector<std::regex> compiled_;
};

// The defaults, compiled once.
const StepPatterns& DefaultStepMatcher();

}  // namespace vprof::reporter
