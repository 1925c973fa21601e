#include "common/deep_schedule.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace vprof {
namespace {

constexpr uint64_t kNsPerSecond = 1000000000ull;
constexpr double kMaxPeriodSeconds = 86400;
constexpr std::string_view kTriggerTag = "vprof-trigger 1 ";

// Seconds as a positive finite decimal, whole string; nanoseconds out.
bool ParsePositiveSeconds(std::string_view text, uint64_t* ns) {
  if (text.empty() || text.size() > 32 || text.front() == '+' || text.front() == '-') return false;
  const std::string copy(text);  // strtod needs a terminated string
  char* end = nullptr;
  const double seconds = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > kMaxPeriodSeconds) {
    return false;
  }
  *ns = static_cast<uint64_t>(std::llround(seconds * 1e9));
  return *ns > 0;
}

bool ParseU64(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string SecondsText(uint64_t ns) {
  char buffer[32];
  const double seconds = static_cast<double>(ns) / 1e9;
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, seconds);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(ns / kNsPerSecond);
}

}  // namespace

bool ParseDeepSchedule(std::string_view text, DeepSchedule* out) {
  if (text == "always") {
    *out = DeepSchedule{};
    return true;
  }
  if (text == "trigger") {
    *out = DeepSchedule{DeepSchedule::Mode::kTrigger, 0, 0};
    return true;
  }
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  DeepSchedule duty{DeepSchedule::Mode::kDutyCycle, 0, 0};
  if (!ParsePositiveSeconds(text.substr(0, slash), &duty.on_ns) ||
      !ParsePositiveSeconds(text.substr(slash + 1), &duty.period_ns) ||
      duty.on_ns >= duty.period_ns) {
    return false;
  }
  *out = duty;
  return true;
}

std::string DeepScheduleText(const DeepSchedule& schedule) {
  switch (schedule.mode) {
    case DeepSchedule::Mode::kAlways:
      return "always";
    case DeepSchedule::Mode::kTrigger:
      return "trigger";
    case DeepSchedule::Mode::kDutyCycle:
      break;
  }
  return SecondsText(schedule.on_ns) + "/" + SecondsText(schedule.period_ns);
}

bool InDutyWindow(const DeepSchedule& schedule, uint64_t realtime_ns) {
  if (schedule.mode != DeepSchedule::Mode::kDutyCycle || schedule.period_ns == 0) return false;
  return realtime_ns % schedule.period_ns >= schedule.period_ns - schedule.on_ns;
}

std::string FormatTrigger(const TriggerWindow& window) {
  return std::string(kTriggerTag) + std::to_string(window.start_realtime_ns) + " " +
         std::to_string(window.end_realtime_ns) + "\n";
}

bool ParseTrigger(std::string_view text, TriggerWindow* out, std::string* error) {
  const std::string expected =
      "one line 'vprof-trigger 1 START_NS END_NS' (CLOCK_REALTIME nanoseconds, a window of at "
      "most 3600 s), as `vprof trigger` writes it";
  if (text.size() > kMaxTriggerFileBytes || text.substr(0, kTriggerTag.size()) != kTriggerTag ||
      text.back() != '\n') {
    *error = expected;
    return false;
  }
  text.remove_prefix(kTriggerTag.size());
  text.remove_suffix(1);
  const size_t space = text.find(' ');
  TriggerWindow window;
  if (space == std::string_view::npos ||
      !ParseU64(text.substr(0, space), &window.start_realtime_ns) ||
      !ParseU64(text.substr(space + 1), &window.end_realtime_ns) ||
      window.end_realtime_ns <= window.start_realtime_ns ||
      window.end_realtime_ns - window.start_realtime_ns > kMaxTriggerWindowNs) {
    *error = expected;
    return false;
  }
  *out = window;
  return true;
}

}  // namespace vprof
