#include "launch/trigger_command.h"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "common/deep_schedule.h"
#include "reporter/base/arg_cursor.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/safe_file.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kCommand = "trigger";
constexpr double kDefaultSeconds = 10;
// Every process reads the trigger file once per flush interval (250 ms by
// default): a window that starts a second from now starts everywhere at once.
constexpr double kDefaultDelaySeconds = 1;
constexpr double kMaxSeconds = static_cast<double>(kMaxTriggerWindowNs) / 1e9;

// A number of seconds in [min, kMaxSeconds] (min excluded when open_min).
std::optional<double> SecondsIn(const std::string& value, double min, bool open_min) {
  if (value.empty() || value[0] == '+' || value[0] == '-') return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  if (*end != '\0' || !std::isfinite(seconds) || seconds < min || (open_min && seconds == min) ||
      seconds > kMaxSeconds) {
    return std::nullopt;
  }
  return seconds;
}

uint64_t Ns(double seconds) { return static_cast<uint64_t>(std::llround(seconds * 1e9)); }

}  // namespace

std::string TriggerUsage() {
  return "usage: vprof trigger DIR [--seconds S] [--in S]\n"
         "\n"
         "Opens a deep window: every process writing traces into the run folder DIR\n"
         "(its VPROF_OUTPUT_DIR) with VPROF_DEEP=trigger or a duty cycle records GPU\n"
         "activity from S seconds from now (--in, default 1) for --seconds (default 10,\n"
         "at most 3600), all from the same wall-clock instant. The processes read\n"
         "DIR/vprof.trigger once per flush interval (VPROF_FLUSH_MS); a later trigger\n"
         "replaces an earlier one.\n"
         "\n"
         "exit status: 0 the trigger was written; 1 it could not be; 2 usage errors.\n";
}

int RunTriggerCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ArgCursor cursor(args, kCommand, err);
  std::optional<std::string> folder;
  double seconds = kDefaultSeconds;
  double delay = kDefaultDelaySeconds;
  while (cursor.Next()) {
    if (!cursor.is_option()) {
      if (folder) {
        cursor.Complain("one folder expected, got '" + std::string(cursor.name()) + "' too");
        return kExitUsage;
      }
      folder = std::string(cursor.name());
      continue;
    }
    const bool is_seconds = cursor.name() == "--seconds";
    if (!is_seconds && cursor.name() != "--in") {
      cursor.ComplainUnknown();
      return kExitUsage;
    }
    const std::optional<std::string> value = cursor.Value();
    if (!value) return kExitUsage;
    const std::optional<double> parsed = SecondsIn(*value, 0, is_seconds);
    if (!parsed) {
      cursor.Complain(std::string(cursor.name()) + " '" + *value + "': expected seconds, " +
                      (is_seconds ? "above 0" : "0 or more") + " and at most 3600");
      return kExitUsage;
    }
    (is_seconds ? seconds : delay) = *parsed;
  }
  if (!folder) {
    cursor.Complain("missing the run folder DIR (see 'vprof help trigger')");
    return kExitUsage;
  }
  struct stat st;
  if (stat(folder->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    cursor.Complain("'" + *folder + "' is not a folder: expected a run's folder of traces");
    return kExitUsage;
  }
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const uint64_t now_ns =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
  TriggerWindow window;
  window.start_realtime_ns = now_ns + Ns(delay);
  window.end_realtime_ns = window.start_realtime_ns + Ns(seconds);
  const std::string path = *folder + "/" + kTriggerFileName;
  std::string error;
  if (!WriteFilePrivately(path, FormatTrigger(window), &error)) {
    cursor.Complain(error);
    return kExitFailure;
  }
  out << "vprof: trigger: " << seconds << " s of deep capture starting " << delay
      << " s from now, in the processes writing into " << *folder << " (" << path << ")\n";
  return kExitOk;
}

}  // namespace vprof::reporter
