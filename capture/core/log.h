// vprof's own log lines: "vprof: <pid> <level>: message" on stderr.
//
// spdlog is compiled in header-only (with fmt header-only), so the preloaded
// library loads nothing extra at run time. The logger is created once and
// never destroyed: CUPTI and NCCL threads may log while static destructors run.
#pragma once

#include <spdlog/logger.h>

#include "capture/core/settings.h"

namespace vprof {

void InitLog(LogLevel level);
spdlog::logger& Log();

// For the many places that must warn once per process about one condition.
#define VPROF_WARN_ONCE(...)                                      \
  do {                                                            \
    static std::atomic<bool> vprof_warned_{false};                \
    if (!vprof_warned_.exchange(true, std::memory_order_relaxed)) \
      ::vprof::Log().warn(__VA_ARGS__);                           \
  } while (0)

}  // namespace vprof
