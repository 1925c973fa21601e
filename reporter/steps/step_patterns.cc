#include "reporter/steps/step_patterns.h"

namespace vprof::reporter {

std::vector<std::string> DefaultStepPatterns() {
  return {R"(^(vprof\.)?([Tt]rain(ing)?[_ ]?)?[Ss]tep([ _#:-]?[0-9]+)?$)",
          R"(^ProfilerStep#[0-9]+$)"};
}

std::optional<std::string> StepPatternError(const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    try {
      std::regex compiled(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      return "--step-pattern '" + pattern +
             "' is not a valid ECMAScript regular expression: " + error.what();
    }
  }
  return std::nullopt;
}

StepPatterns::StepPatterns(std::vector<std::string> patterns)
    : sources_(patterns.empty() ? DefaultStepPatterns() : std::move(patterns)) {
  for (const std::string& source : sources_) {
    try {
      compiled_.emplace_back(source, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
      // StepPatternError reports it; it matches nothing here.
    }
  }
}

bool StepPatterns::Matches(std::string_view range_name) const {
  for (const std::regex& pattern : compiled_) {
    if (std::regex_search(range_name.begin(), range_name.end(), pattern)) return true;
  }
  return false;
}

std::string StepPatterns::Description() const {
  std::string text;
  for (const std::string& source : sources_) {
    if (!text.empty()) text += " | ";
    text += source;
  }
  return text;
}

const StepPatterns& DefaultStepMatcher() {
  static const StepPatterns defaults;
  return defaults;
}

}  // namespace vprof::reporter
