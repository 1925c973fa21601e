#include "reporter/render/text_sections.h"

#include "reporter/base/arg_cursor.h"

namespace vprof::reporter {
namespace {

constexpr std::array<std::string_view, kTextSectionCount> kNames = {
    "summary", "run",         "processes", "communicators", "ranks",
    "gpu",     "consistency", "phases",    "steps",         "candidates"};

}  // namespace

std::string_view TextSectionName(TextSection section) {
  return kNames[static_cast<size_t>(section)];
}

std::optional<TextSections> ParseTextSections(std::string_view text, std::string& error) {
  TextSections sections = 0;
  for (const std::string_view name : CommaSeparated(text)) {
    size_t index = 0;
    while (index < kNames.size() && kNames[index] != name) ++index;
    if (index == kNames.size()) {
      error = "'" + std::string(name) + "' is not a section (expected some of";
      for (const std::string_view known : kNames) error += " " + std::string(known);
      error += ", separated by commas)";
      return std::nullopt;
    }
    sections |= 1u << index;
  }
  return sections;
}

}  // namespace vprof::reporter
