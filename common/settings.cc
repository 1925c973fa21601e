#include "common/settings.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace vprof {
namespace {

// The value as the warning shows it: control characters as \xNN, so that the
// warning stays one line whatever the variable holds.
std::string Shown(const char* value) {
  std::string out;
  for (const char* c = value; *c; ++c) {
    const auto byte = static_cast<unsigned char>(*c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += *c;
      continue;
    }
    char escaped[5];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
    out += escaped;
  }
  return out;
}

void Refuse(SettingsResult* r, const char* name, const char* value, std::string_view expected) {
  r->error =
      std::string(name) + "='" + Shown(value) + "' is invalid: expected " + std::string(expected);
  r->expected = expected;
}

// Parses a whole string as an unsigned integer of at least lo.
bool ParseUint64(const char* s, uint64_t lo, uint64_t* out) {
  if (!*s || *s == '-' || *s == '+') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || *end || v < lo) return false;
  *out = v;
  return true;
}

// Parses a whole string as an unsigned integer in [lo, hi].
bool ParseUint(const char* s, uint64_t lo, uint64_t hi, uint32_t* out) {
  uint64_t v = 0;
  if (!ParseUint64(s, lo, &v) || v > hi) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

bool ParseSeconds(const char* s, double* out) {
  if (!*s) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (errno || *end || !std::isfinite(v) || v < 0) return false;
  *out = v;
  return true;
}

bool ParseLevel(std::string_view s, LogLevel* out) {
  static constexpr struct {
    std::string_view name;
    LogLevel level;
  } kLevels[] = {{"trace", LogLevel::kTrace}, {"debug", LogLevel::kDebug},
                 {"info", LogLevel::kInfo},   {"warn", LogLevel::kWarn},
                 {"error", LogLevel::kError}, {"off", LogLevel::kOff}};
  for (const auto& l : kLevels) {
    if (s == l.name) {
      *out = l.level;
      return true;
    }
  }
  return false;
}

bool ParseSwitch(const char* s, bool* out) {
  std::string_view sv(s);
  if (sv != "0" && sv != "1") return false;
  *out = sv == "1";
  return true;
}

}  // namespace

SettingsResult ParseSettings(const SettingLookup& lookup) {
  SettingsResult r;
  Settings& s = r.settings;
  if (const char* v = lookup("VPROF_ENABLE"); v && !ParseSwitch(v, &s.enabled)) {
    Refuse(&r, "VPROF_ENABLE", v, "0 or 1");
    return r;
  }
  if (const char* v = lookup("VPROF_GPU"); v && !ParseSwitch(v, &s.gpu_capture)) {
    Refuse(&r, "VPROF_GPU", v, "0 or 1");
    return r;
  }
  if (const char* v = lookup("VPROF_CUPTI_KINDS"); v && !ParseGpuKinds(v, &s.gpu_kinds)) {
    Refuse(&r, "VPROF_CUPTI_KINDS", v, GpuKindsExpected());
    return r;
  }
  if (const char* v = lookup("VPROF_DEEP"); v && !ParseDeepSchedule(v, &s.deep)) {
    Refuse(&r, "VPROF_DEEP", v, kDeepScheduleExpected);
    return r;
  }
  if (const char* v = lookup("VPROF_AUDIT")) {
    std::string_view mode(v);
    if (mode != "fingerprint" && mode != "off") {
      Refuse(&r, "VPROF_AUDIT", v, "fingerprint or off");
      return r;
    }
    s.audit_fingerprints = mode == "fingerprint";
  }
  if (const char* v = lookup("VPROF_AUDIT_EVERY"); v && !ParseUint64(v, 1, &s.audit_every)) {
    Refuse(&r, "VPROF_AUDIT_EVERY", v, "a whole number of collectives, 1 or more");
    return r;
  }
  if (const char* v = lookup("VPROF_AUDIT_MIN_BYTES");
      v && !ParseUint64(v, 0, &s.audit_min_bytes)) {
    Refuse(&r, "VPROF_AUDIT_MIN_BYTES", v, "a whole number of bytes, 0 or more");
    return r;
  }
  static constexpr struct {
    const char* name;
    bool Settings::*field;
  } kPluginSwitches[] = {{"VPROF_NCCL_PLUGIN", &Settings::nccl_plugin},
                         {"VPROF_NCCL_KERNEL_CH", &Settings::nccl_kernel_ch},
                         {"VPROF_NCCL_PROXY", &Settings::nccl_proxy}};
  for (const auto& sw : kPluginSwitches) {
    if (const char* v = lookup(sw.name); v && !ParseSwitch(v, &(s.*sw.field))) {
      Refuse(&r, sw.name, v, "0 or 1");
      return r;
    }
  }
  if (const char* v = lookup("VPROF_OUTPUT_DIR")) {
    if (!*v) {
      Refuse(&r, "VPROF_OUTPUT_DIR", v, "a folder path");
      return r;
    }
    s.output_dir = v;
  }
  if (const char* v = lookup("VPROF_FLUSH_MS")) {
    if (!ParseUint(v, 10, 600000, &s.flush_interval_ms)) {
      Refuse(&r, "VPROF_FLUSH_MS", v, "milliseconds, an integer from 10 to 600000");
      return r;
    }
  }
  if (const char* v = lookup("VPROF_BUFFER_KB")) {
    if (!ParseUint(v, 16, kMaxBufferKib, &s.buffer_kib)) {
      Refuse(&r, "VPROF_BUFFER_KB", v, "KiB per thread, an integer from 16 to 16384");
      return r;
    }
  }
  if (const char* v = lookup("VPROF_START_AFTER_S")) {
    if (!ParseSeconds(v, &s.start_after_s)) {
      Refuse(&r, "VPROF_START_AFTER_S", v, "seconds, a number >= 0");
      return r;
    }
  }
  if (const char* v = lookup("VPROF_STOP_AFTER_S")) {
    if (!ParseSeconds(v, &s.stop_after_s)) {
      Refuse(&r, "VPROF_STOP_AFTER_S", v, "seconds, a number >= 0 (0: never)");
      return r;
    }
    if (s.stop_after_s > 0 && s.stop_after_s <= s.start_after_s) {
      Refuse(&r, "VPROF_STOP_AFTER_S", v, "a time after VPROF_START_AFTER_S, or 0");
      return r;
    }
  }
  if (const char* v = lookup("VPROF_LOG_LEVEL")) {
    if (!ParseLevel(v, &s.log_level)) {
      Refuse(&r, "VPROF_LOG_LEVEL", v, "one of trace, debug, info, warn, error, off");
      return r;
    }
  }
  return r;
}

std::optional<std::string> SettingRefused(const char* name, const std::string& value) {
  SettingsResult r = ParseSettings(
      [&](const char* asked) { return asked == std::string_view(name) ? value.c_str() : nullptr; });
  if (r.error.empty()) return std::nullopt;
  return r.expected;
}

}  // namespace vprof
