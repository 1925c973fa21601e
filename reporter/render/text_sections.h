// The sections of the text report, by the names `--sections` takes, and which
// of them a report is written with: every one by default, the Summary and the
// candidates under `--brief`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vprof::reporter {

enum class TextSection : uint8_t {
  kSummary,
  kRun,  // times, deep capture, vprof's own cost, clock, inputs
  kProcesses,
  kCommunicators,
  kRanks,
  kGpu,
  kConsistency,
  kPhases,
  kSteps,
  kCandidates,
};
inline constexpr size_t kTextSectionCount = 10;

// "summary", "run", "processes", ...
std::string_view TextSectionName(TextSection section);

// A bit per TextSection.
using TextSections = uint32_t;
inline constexpr TextSections SectionBit(TextSection section) {
  return 1u << static_cast<uint32_t>(section);
}
inline constexpr TextSections kAllTextSections = (1u << kTextSectionCount) - 1;
inline constexpr TextSections kBriefTextSections =
    SectionBit(TextSection::kSummary) | SectionBit(TextSection::kCandidates);

// "summary,steps": names TextSectionName gives, separated by commas; none,
// with `error` naming the names, for any other.
std::optional<TextSections> ParseTextSections(std::string_view text, std::string& error);

}  // namespace vprof::reporter
