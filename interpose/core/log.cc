#include "interpose/core/log.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <unistd.h>

#include <atomic>
#include <iterator>
#include <mutex>

namespace vprof {
namespace {

// Writes each formatted line with one write(2) on fd 2: no FILE* buffering
// shared with the host program, and lines from different threads stay whole.
class StderrFdSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
      ssize_t n = ::write(STDERR_FILENO, p, left);
      if (n <= 0) return;  // nowhere to report a failure to report
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  void flush_() override {}
};

spdlog::level::level_enum ToSpdlog(LogLevel l) {
  switch (l) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::warn;
}

std::atomic<spdlog::logger*> g_logger{nullptr};

spdlog::logger* MakeLogger(LogLevel level) {
  // Leaked on purpose: see log.h.
  auto* logger = new spdlog::logger("vprof", std::make_shared<StderrFdSink>());
  // %P is the process id, %l the level name.
  logger->set_pattern("vprof: %P %l: %v");
  logger->set_level(ToSpdlog(level));
  return logger;
}

spdlog::logger& Logger() {
  spdlog::logger* l = g_logger.load(std::memory_order_acquire);
  if (!l) {
    InitLog(LogLevel::kWarn);
    l = g_logger.load(std::memory_order_acquire);
  }
  return *l;
}

}  // namespace

void InitLog(LogLevel level) {
  static std::once_flag once;
  std::call_once(once, [level] { g_logger.store(MakeLogger(level), std::memory_order_release); });
}

bool LogEnabled(LogLevel level) noexcept {
  try {
    return Logger().should_log(ToSpdlog(level));
  } catch (...) {  // the logger's first allocation failed
    return false;
  }
}

void LogLine(LogLevel level, fmt::string_view format, fmt::format_args args) noexcept {
  // A format error (a null string argument) or a failed allocation loses the
  // line, as spdlog's own formatting did, and nothing else.
  try {
    spdlog::logger& logger = Logger();
    const spdlog::level::level_enum spdlog_level = ToSpdlog(level);
    if (!logger.should_log(spdlog_level)) return;
    spdlog::memory_buf_t line;
    fmt::vformat_to(std::back_inserter(line), format, args);
    logger.log(spdlog_level, spdlog::string_view_t(line.data(), line.size()));
  } catch (...) {
  }
}

}  // namespace vprof
