#include "reporter/cli.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "reporter/build_report.h"
#include "reporter/json_report.h"
#include "reporter/text_report.h"
#include "reporter/trace_directory.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kUsage =
    "usage: vprof <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  report DIR [--format text|json] [--output FILE]\n"
    "                 summarize the traces (*.vtrace) a run wrote to DIR\n"
    "  help [COMMAND] show this help, or a command's\n"
    "\n"
    "exit status: 0 all traces whole; 1 failure; 2 usage error; 3 report written but\n"
    "some trace was cut, corrupt or skipped\n";

constexpr std::string_view kReportUsage =
    "usage: vprof report DIR [--format text|json] [--output FILE]\n"
    "\n"
    "Reads every *.vtrace file directly in DIR (one per traced process), matches\n"
    "each collective across ranks and reports, per communicator, op and message\n"
    "size: count, time, algbw/busbw as nccl-tests defines them, arrival skew and\n"
    "the rank that arrived last; then per-rank lateness and per-process trace health.\n"
    "\n"
    "  --format text|json  text for people (default) or JSON (keys: reporter/README.md)\n"
    "  --output FILE       write the report to FILE instead of standard output\n"
    "\n"
    "exit status: 0 all traces whole; 1 failure; 2 usage error; 3 report written but\n"
    "some trace was cut, corrupt or skipped (each is named on standard error)\n";

struct ReportOptions {
  std::string directory;
  bool json = false;
  std::optional<std::string> output;
};

// Parses `report`'s arguments; nullopt after printing why to `err`.
std::optional<ReportOptions> ParseReportOptions(const std::vector<std::string>& args,
                                                std::ostream& err) {
  ReportOptions options;
  bool have_directory = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::optional<std::string> value;
    // --name=value and --name value are the same.
    const size_t equals = arg.find('=');
    if (arg.starts_with("--") && equals != std::string_view::npos) {
      value = std::string(arg.substr(equals + 1));
      arg = arg.substr(0, equals);
    }
    const auto take_value = [&]() -> std::optional<std::string> {
      if (value) return value;
      if (i + 1 < args.size()) return args[++i];
      err << "vprof: report: " << arg << " needs a value\n";
      return std::nullopt;
    };
    if (arg == "--format") {
      const auto format = take_value();
      if (!format) return std::nullopt;
      if (*format != "text" && *format != "json") {
        err << "vprof: report: --format must be text or json, not '" << *format << "'\n";
        return std::nullopt;
      }
      options.json = *format == "json";
    } else if (arg == "--output") {
      options.output = take_value();
      if (!options.output) return std::nullopt;
    } else if (arg.starts_with("-")) {
      err << "vprof: report: unknown option '" << args[i] << "' (see 'vprof help report')\n";
      return std::nullopt;
    } else if (have_directory) {
      err << "vprof: report: unexpected argument '" << arg << "': one DIR only\n";
      return std::nullopt;
    } else {
      options.directory = std::string(arg);
      have_directory = true;
    }
  }
  if (!have_directory) {
    err << "vprof: report: missing DIR, the directory of *.vtrace files (see 'vprof help "
           "report')\n";
    return std::nullopt;
  }
  return options;
}

int RunReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      out << kReportUsage;
      return kExitOk;
    }
  }
  const std::optional<ReportOptions> options = ParseReportOptions(args, err);
  if (!options) return kExitUsage;
  const TraceFileList traces = ListTraceFiles(options->directory);
  if (!traces.error.empty()) {
    err << "vprof: " << traces.error << '\n';
    return traces.usage_error ? kExitUsage : kExitFailure;
  }

  const Report report = BuildReport(options->directory, traces.paths);
  for (const ProcessReport& process : report.processes) {
    if (process.problem.empty()) continue;
    err << "vprof: " << (std::filesystem::path(options->directory) / process.file).string() << ": "
        << process.problem << '\n';
  }

  const auto write = [&](std::ostream& to) {
    options->json ? WriteJsonReport(report, to) : WriteTextReport(report, to);
  };
  if (options->output) {
    std::ofstream file(*options->output, std::ios::out | std::ios::trunc);
    if (file) write(file);
    file.close();
    if (!file) {
      err << "vprof: cannot write " << *options->output << ": " << std::strerror(errno) << '\n';
      return kExitFailure;
    }
  } else {
    write(out);
    if (!out.flush()) {
      err << "vprof: cannot write the report to standard output\n";
      return kExitFailure;
    }
  }
  return report.all_inputs_whole() ? kExitOk : kExitInputNotWhole;
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return kExitUsage;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    if (command == "help" && !rest.empty() && rest[0] == "report") {
      out << kReportUsage;
    } else if (command == "help" && !rest.empty()) {
      err << "vprof: help: unknown command '" << rest[0] << "'\n" << kUsage;
      return kExitUsage;
    } else {
      out << kUsage;
    }
    return kExitOk;
  }
  if (command == "report") return RunReport(rest, out, err);
  err << "vprof: unknown command '" << command << "'\n" << kUsage;
  return kExitUsage;
}

}  // namespace vprof::reporter
