#include "launch/launch_options.h"

#include <optional>
#include <string>

#include "common/settings.h"
#include "reporter/base/arg_cursor.h"

namespace vprof::reporter {
namespace {

// One option per VPROF_* setting; its value is checked by the parse libvprof
// itself runs (common/settings.h), before anything starts.
struct SettingOption {
  std::string_view option;
  const char* variable;
};

constexpr SettingOption kSettingOptions[] = {
    {"--flush-ms", "VPROF_FLUSH_MS"},         {"--buffer-kb", "VPROF_BUFFER_KB"},
    {"--start-after", "VPROF_START_AFTER_S"}, {"--stop-after", "VPROF_STOP_AFTER_S"},
    {"--log-level", "VPROF_LOG_LEVEL"},       {"--deep", "VPROF_DEEP"},
};

const SettingOption* FindSettingOption(std::string_view name) {
  for (const SettingOption& setting : kSettingOptions) {
    if (setting.option == name) return &setting;
  }
  return nullptr;
}

}  // namespace

const std::string_view kLaunchOptionsHelp =
    "  --output DIR        the run's folder of traces (VPROF_OUTPUT_DIR)\n"
    "  --flush-ms N        write buffered events every N ms, 10..600000 (VPROF_FLUSH_MS)\n"
    "  --buffer-kb N       event buffer per thread in KiB, 16..16384 (VPROF_BUFFER_KB)\n"
    "  --start-after S     start recording S seconds into each process (VPROF_START_AFTER_S)\n"
    "  --stop-after S      stop recording S seconds into each process (VPROF_STOP_AFTER_S)\n"
    "  --log-level L       trace, debug, info, warn, error or off (VPROF_LOG_LEVEL)\n"
    "  --deep SCHEDULE     when GPU activity is recorded: always (default), trigger\n"
    "                      (only in windows 'vprof trigger' opens), or ON/PERIOD\n"
    "                      seconds, e.g. 5/60 (VPROF_DEEP)\n"
    "  --library PATH      the libvprof.so to use (default: $VPROF_LIBRARY, else the one\n"
    "                      beside this vprof: ../interpose/ in a build, ../lib/ installed)\n"
    "  --report            after the command, write the report into the folder\n"
    "                      (report.txt, .json, .md or .html by --report-format) and\n"
    "                      print its Summary\n"
    "  --report-format F   text (default), json, markdown or html\n"
    "  --step-pattern REGEX, --warmup N, --phase-rules FILE\n"
    "                      how the report finds steps and phases (see 'vprof help report')\n"
    "  --force             use a folder that holds another run's manifest.json\n";

std::optional<LaunchOptions> ParseLaunchOptions(const std::vector<std::string>& args,
                                                std::string_view command, std::ostream& err) {
  LaunchOptions options;
  ArgCursor arg(args, command, err);
  while (arg.Next()) {
    // The command starts after "--", or at the first argument that is not an option.
    if (arg.is_separator() || !arg.is_option()) {
      options.command = arg.is_separator() ? arg.Rest() : arg.FromCurrent();
      break;
    }
    const OptionUse analysis = TakeAnalysisOption(arg, options.report_analysis);
    if (analysis == OptionUse::kBad) return std::nullopt;
    if (analysis == OptionUse::kTaken) continue;
    if (arg.name() == "--report") {
      options.report = true;
    } else if (arg.name() == "--force") {
      options.force = true;
    } else if (const SettingOption* setting = FindSettingOption(arg.name())) {
      const auto value = arg.Value();
      if (!value) return std::nullopt;
      if (const std::optional<std::string> expected = SettingRefused(setting->variable, *value)) {
        arg.Complain(std::string(setting->option) + " '" + *value + "' is invalid: expected " +
                     *expected);
        return std::nullopt;
      }
      options.settings[setting->variable] = *value;
    } else if (arg.name() == "--output" || arg.name() == "--library" ||
               arg.name() == "--report-format") {
      const auto value = arg.Value();
      if (!value) return std::nullopt;
      if (arg.name() == "--output") {
        options.output = *value;
      } else if (arg.name() == "--library") {
        options.library = *value;
      } else if (const std::optional<ReportFormat> format = ReportFormatNamed(*value)) {
        options.report_format = *format;
      } else {
        arg.Complain("--report-format must be text, json, markdown or html, not '" + *value + "'");
        return std::nullopt;
      }
    } else {
      arg.ComplainUnknown();
      return std::nullopt;
    }
  }
  if (!CheckAnalysisOptions(arg, options.report_analysis)) return std::nullopt;
  return options;
}

}  // namespace vprof::reporter
