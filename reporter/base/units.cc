#include "reporter/base/units.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <iterator>
#include <string_view>

namespace vprof::reporter {
namespace {

constexpr std::array<std::string_view, 7> kIecUnits = {"B",   "KiB", "MiB", "GiB",
                                                       "TiB", "PiB", "EiB"};

// Three significant digits for 1 <= value < 1000 (wider above, which only the
// largest unit produces).
std::string ThreeDigits(double value, std::string_view unit) {
  const char* format = value < 9.995 ? "%.2f %.*s" : value < 99.95 ? "%.1f %.*s" : "%.0f %.*s";
  char text[64];
  std::snprintf(text, sizeof text, format, value, static_cast<int>(unit.size()), unit.data());
  return text;
}

}  // namespace

std::string FormatDuration(double ns) {
  if (ns < 0) return "-" + FormatDuration(-ns);
  // Thresholds sit at 999.5 so a value that would round to "1000" moves up a unit.
  if (ns < 999.5) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f ns", ns);
    return text;
  }
  if (ns < 999.5e3) return ThreeDigits(ns / 1e3, "µs");
  if (ns < 999.5e6) return ThreeDigits(ns / 1e6, "ms");
  return ThreeDigits(ns / 1e9, "s");
}

std::string FormatPercent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

std::string FormatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1023.5 && unit + 1 < kIecUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  return ThreeDigits(value, kIecUnits[unit]);
}

std::string FormatGBps(double gbps) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", gbps);
  return text;
}

std::string FormatPowerOfTwoBytes(int log2) {
  const int unit = log2 / 10;
  return std::to_string(uint64_t{1} << (log2 % 10)) + std::string(kIecUnits[unit]);
}

std::string FormatCount(uint64_t count, std::string_view one, std::string_view many) {
  return std::to_string(count) + " " + std::string(count == 1 ? one : many);
}

std::string FormatHexId(uint64_t id) {
  // to_chars, not snprintf: the steps' JSON names a communicator per bucket
  // of every step, and formatting them was 2% of a 1,024-rank report.
  char text[2 + 16] = {'0', 'x'};
  return std::string(text, std::to_chars(text + 2, std::end(text), id, 16).ptr);
}

}  // namespace vprof::reporter
