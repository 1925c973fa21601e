#include "reporter/ingest/process_record.h"

#include <algorithm>
#include <filesystem>

namespace vprof::reporter {

std::string ProcessRecord::file() const { return std::filesystem::path(path).filename().string(); }

void ClockSamples::Add(int64_t offset_ns) {
  min_offset_ns = count == 0 ? offset_ns : std::min(min_offset_ns, offset_ns);
  max_offset_ns = count == 0 ? offset_ns : std::max(max_offset_ns, offset_ns);
  ++count;
}

std::string_view InputStateName(InputState state) {
  switch (state) {
    case InputState::kWhole:
      return "whole";
    case InputState::kCut:
      return "cut";
    case InputState::kCorrupt:
      return "corrupt";
    case InputState::kUnreadable:
      return "unreadable";
    case InputState::kNewerFormat:
      return "newer_format";
  }
  return "unknown";
}

}  // namespace vprof::reporter
