#include "reporter/export/export_command.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "reporter/base/arg_cursor.h"
#include "reporter/base/exit_status.h"
#include "reporter/export/export_chrome.h"
#include "reporter/export/export_hta.h"
#include "reporter/export/export_plan.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kExportUsage =
    "usage: vprof export --format chrome|hta [-o OUT] DIR\n"
    "\n"
    "Writes the traces (*.vtrace) a run wrote to DIR as timelines, every process\n"
    "on the clock the report uses (times in microseconds since the earliest\n"
    "process start).\n"
    "\n"
    "  --format chrome   one Chrome Trace Event JSON file for Perfetto UI and\n"
    "                    chrome://tracing: a process per traced process, by rank;\n"
    "                    NCCL calls, NVTX ranges, CUDA API calls, a track per GPU\n"
    "                    stream and per communicator (NCCL profiler plugin), arrows\n"
    "                    from launches and NCCL calls to their kernels\n"
    "  --format hta      one Kineto-style JSON file per rank, OUT/rank-<R>.json, for\n"
    "                    Holistic Trace Analysis\n"
    "  -o, --output OUT  chrome: the file (default: standard output);\n"
    "                    hta: the directory (default: DIR/hta)\n"
    "\n"
    "exit status: 0 all traces whole; 1 failure; 2 usage error; 3 written, but\n"
    "some trace was cut, corrupt or skipped (each is named on standard error)\n";

enum class ExportFormat { kChrome, kHta };

struct ExportOptions {
  std::optional<ExportFormat> format;
  std::optional<std::string> output;
  std::string directory;
};

// Nullopt after saying why on `err`.
std::optional<ExportOptions> ParseExportOptions(const std::vector<std::string>& args,
                                                std::ostream& err) {
  ExportOptions options;
  ArgCursor arg(args, "export", err);
  while (arg.Next()) {
    if (arg.name() == "--format") {
      const std::optional<std::string> format = arg.Value();
      if (!format) return std::nullopt;
      if (*format != "chrome" && *format != "hta") {
        arg.Complain("--format must be chrome or hta, not '" + *format + "'");
        return std::nullopt;
      }
      options.format = *format == "chrome" ? ExportFormat::kChrome : ExportFormat::kHta;
    } else if (arg.name() == "-o" || arg.name() == "--output") {
      options.output = arg.Value();
      if (!options.output) return std::nullopt;
    } else if (!arg.TakeDirectory(options.directory)) {
      return std::nullopt;
    }
  }
  if (!options.format) {
    arg.Complain("missing --format chrome|hta (see 'vprof help export')");
    return std::nullopt;
  }
  if (options.directory.empty()) {
    arg.Complain("missing DIR, the directory of *.vtrace files (see 'vprof help export')");
    return std::nullopt;
  }
  return options;
}

int ExportChrome(const ExportPlan& plan, const ExportOptions& options, std::ostream& out,
                 std::ostream& err) {
  if (!options.output) {
    WriteChromeTimeline(plan, options.directory, out);
    if (out.flush()) return kExitOk;
    err << "vprof: cannot write the timeline to standard output\n";
    return kExitFailure;
  }
  std::ofstream file(*options.output, std::ios::out | std::ios::trunc);
  if (file) WriteChromeTimeline(plan, options.directory, file);
  file.close();
  if (!file) {
    err << "vprof: cannot write " << *options.output << ": " << std::strerror(errno) << '\n';
    return kExitFailure;
  }
  err << "vprof: timeline written to " << *options.output << '\n';
  return kExitOk;
}

int ExportHta(const ExportPlan& plan, const ExportOptions& options, std::ostream& err) {
  const std::string out_dir =
      options.output.value_or((std::filesystem::path(options.directory) / "hta").string());
  const std::optional<size_t> files = WriteHtaTraces(plan, out_dir, err);
  if (!files) return kExitFailure;
  err << "vprof: hta traces of " << *files << (*files == 1 ? " rank" : " ranks") << " written to "
      << out_dir << '\n';
  return kExitOk;
}

}  // namespace

std::string ExportUsage() { return std::string(kExportUsage); }

int RunExportCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      out << kExportUsage;
      return kExitOk;
    }
  }
  const std::optional<ExportOptions> options = ParseExportOptions(args, err);
  if (!options) return kExitUsage;
  int status = kExitOk;
  const auto paths = ListTraceFilesOrSay(options->directory, err, &status);
  if (!paths) return status;

  const ExportPlan plan = PlanExport(*paths);
  for (const std::string& problem : plan.problems) err << "vprof: " << problem << '\n';
  status = *options->format == ExportFormat::kChrome ? ExportChrome(plan, *options, out, err)
                                                     : ExportHta(plan, *options, err);
  if (status != kExitOk) return status;
  return plan.problems.empty() ? kExitOk : kExitInputNotWhole;
}

}  // namespace vprof::reporter
