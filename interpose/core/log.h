// vprof's own log lines: "vprof: <pid> <level>: message" on stderr.
//
// Callers pass a format string and its arguments through fmt's type-erased
// interface (fmt/core.h); the formatting and spdlog live in log.cc, the one
// file compiled with them header-only. So the preloaded library loads nothing
// extra at run time, and no other file parses spdlog and fmt's formatting
// (about 10 s of compile time each). The logger is created once and never
// destroyed: CUPTI and NCCL threads may log while static destructors run.
#pragma once

#include <fmt/core.h>

#include <atomic>

#include "common/settings.h"

namespace vprof {

void InitLog(LogLevel level);
// Whether a line at `level` is written at the level InitLog set; false when
// the logger cannot be made. Never throws, as LogLine.
bool LogEnabled(LogLevel level) noexcept;
// Writes one line at `level`: `format` with `args`, as fmt::format writes them.
// Never throws: it runs in CUPTI callbacks, NCCL wrappers and exit handlers of
// someone else's process, where an exception would end it.
void LogLine(LogLevel level, fmt::string_view format, fmt::format_args args) noexcept;

template <typename... Args>
void LogWarn(fmt::format_string<Args...> format, Args&&... args) {
  LogLine(LogLevel::kWarn, format, fmt::make_format_args(args...));
}

// Debug lines format nothing unless VPROF_LOG_LEVEL asks for them.
template <typename... Args>
void LogDebug(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kDebug)) {
    LogLine(LogLevel::kDebug, format, fmt::make_format_args(args...));
  }
}

// For the many places that must warn once per process about one condition.
#define VPROF_WARN_ONCE(...)                                                                     \
  do {                                                                                           \
    static std::atomic<bool> vprof_warned_{false};                                               \
    if (!vprof_warned_.exchange(true, std::memory_order_relaxed)) ::vprof::LogWarn(__VA_ARGS__); \
  } while (0)

}  // namespace vprof
