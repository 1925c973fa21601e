#include "reporter/base/utc_time.h"

#include <cstdio>
#include <ctime>

namespace vprof::reporter {

std::string FormatUtc(std::chrono::system_clock::time_point time, const char* format) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

std::string IsoUtc(std::chrono::system_clock::time_point time) {
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count() % 1000;
  char fraction[8];
  std::snprintf(fraction, sizeof fraction, ".%03lldZ", static_cast<long long>(millis));
  return FormatUtc(time, "%Y-%m-%dT%H:%M:%S") + fraction;
}

}  // namespace vprof::reporter
