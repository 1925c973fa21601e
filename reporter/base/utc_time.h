// Times written for people and files in UTC, as manifests and reports give
// them.
#pragma once

#include <chrono>
#include <string>

namespace vprof::reporter {

// `time` in UTC, formatted by strftime's `format` (whole seconds).
std::string FormatUtc(std::chrono::system_clock::time_point time, const char* format);

// "2026-11-30T05:40:01.123Z".
std::string IsoUtc(std::chrono::system_clock::time_point time);

}  // namespace vprof::reporter
