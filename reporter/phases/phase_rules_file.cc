#include "reporter/phases/phase_rules_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include "reporter/base/safe_file.h"

namespace vprof::reporter {
namespace {

std::string_view Trim(std::string_view text) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

PhaseRulesLoad Failure(const std::string& source, size_t line, const std::string& what) {
  return {std::nullopt, source + ":" + std::to_string(line) + ": " + what};
}

}  // namespace

PhaseRulesLoad ParsePhaseRules(const std::string& text, const std::string& source) {
  std::vector<UserPhaseRule> rules;
  std::map<std::string, size_t> line_of_pattern;
  std::istringstream lines(text);
  std::string raw;
  for (size_t line = 1; std::getline(lines, raw); ++line) {
    const std::string_view content = Trim(raw);
    if (content.empty() || content.front() == '#') continue;
    const size_t equals = content.find('=');
    if (equals == std::string_view::npos) {
      return Failure(source, line, "expected 'pattern = phase', found no '='");
    }
    const std::string pattern = Lower(Trim(content.substr(0, equals)));
    const std::string phase(Trim(content.substr(equals + 1)));
    if (pattern.empty()) return Failure(source, line, "the pattern before '=' is empty");
    if (phase.empty()) return Failure(source, line, "the phase after '=' is empty");
    if (phase.find('=') != std::string::npos) {
      return Failure(source, line, "expected one '=' between pattern and phase");
    }
    const auto [earlier, added] = line_of_pattern.try_emplace(pattern, line);
    if (!added) {
      return Failure(
          source, line,
          "pattern '" + pattern + "' is already given on line " + std::to_string(earlier->second));
    }
    rules.push_back({pattern, phase});
  }
  if (rules.empty()) return {std::nullopt, source + ": no rules ('pattern = phase' lines)"};
  return {std::move(rules), ""};
}

PhaseRulesLoad LoadPhaseRulesFile(const std::string& path) {
  // Rules are a few lines; the bound only keeps a mistaken path from filling
  // memory.
  constexpr size_t kMaxPhaseRulesBytes = size_t{64} << 20;
  RegularFileRead read = ReadNamedFile(path, kMaxPhaseRulesBytes);
  if (!read.contents) return {std::nullopt, read.error + " (the phase rules)"};
  return ParsePhaseRules(*read.contents, path);
}

}  // namespace vprof::reporter
