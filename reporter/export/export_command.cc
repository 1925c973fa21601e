#include "reporter/export/export_command.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include "reporter/base/arg_cursor.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/units.h"
#include "reporter/export/export_chrome.h"
#include "reporter/export/export_hta.h"
#include "reporter/export/export_perfetto.h"
#include "reporter/export/export_plan.h"
#include "reporter/export/export_selection.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kExportUsage =
    "usage: vprof export --format chrome|perfetto|hta [-o OUT] [--ranks R] [--steps S]\n"
    "                    [--from T] [--to T] [--kinds K] DIR\n"
    "\n"
    "Writes the traces (*.vtrace) a run wrote to DIR as timelines, every process\n"
    "on the clock the report uses.\n"
    "\n"
    "  --format chrome   one Chrome Trace Event JSON file for Perfetto UI and\n"
    "                    chrome://tracing (times in microseconds since the earliest\n"
    "                    process start): a process per traced process, by rank;\n"
    "                    NCCL calls, NVTX ranges, CUDA API calls, a track per GPU\n"
    "                    stream and per communicator (NCCL profiler plugin), arrows\n"
    "                    from launches and NCCL calls to their kernels\n"
    "  --format perfetto the same as one Perfetto protobuf trace, about a fifth of\n"
    "                    the JSON's size, for Perfetto UI and trace_processor\n"
    "  --format hta      one Kineto-style JSON file per rank, OUT/rank-<R>.json, for\n"
    "                    Holistic Trace Analysis\n"
    "  -o, --output OUT  chrome, perfetto: the file (default: standard output);\n"
    "                    hta: the directory (default: DIR/hta)\n"
    "  --ranks R         only these ranks: 0-7,12\n"
    "  --steps S         only what overlaps these steps, numbered as the report\n"
    "                    numbers them: 10-12, or 10\n"
    "  --from T, --to T  only what overlaps this time window, since the earliest\n"
    "                    process start: 1.5s, 250ms, 40us, 1000ns\n"
    "  --kinds K         only these kinds of record: api, nccl, nvtx, kernels\n"
    "                    (kernels, copies, memsets, graph replays), memory\n"
    "What a filter left out is said on standard error and in the file.\n"
    "\n"
    "exit status: 0 all traces whole; 1 failure; 2 usage error; 3 written, but\n"
    "some trace was cut, corrupt or skipped (each is named on standard error)\n";

enum class ExportFormat { kChrome, kPerfetto, kHta };

struct ExportOptions {
  std::optional<ExportFormat> format;
  std::optional<std::string> output;
  std::string directory;
  ExportSelection selection;
};

std::optional<ExportFormat> FormatNamed(std::string_view name) {
  if (name == "chrome") return ExportFormat::kChrome;
  if (name == "perfetto") return ExportFormat::kPerfetto;
  if (name == "hta") return ExportFormat::kHta;
  return std::nullopt;
}

// A filter option's value, parsed by `parse` into `into`; false after saying
// what was wrong with it.
template <typename Value, typename Parse>
bool TakeFilter(ArgCursor& arg, Parse parse, std::optional<Value>& into) {
  const std::optional<std::string> text = arg.Value();
  if (!text) return false;
  std::string error;
  into = parse(*text, error);
  if (!into) arg.Complain(std::string(arg.name()) + ": " + error);
  return into.has_value();
}

// Nullopt after saying why on `err`.
std::optional<ExportOptions> ParseExportOptions(const std::vector<std::string>& args,
                                                std::ostream& err) {
  ExportOptions options;
  ArgCursor arg(args, "export", err);
  while (arg.Next()) {
    if (arg.name() == "--format") {
      const std::optional<std::string> format = arg.Value();
      if (!format) return std::nullopt;
      options.format = FormatNamed(*format);
      if (!options.format) {
        arg.Complain("--format must be chrome, perfetto or hta, not '" + *format + "'");
        return std::nullopt;
      }
    } else if (arg.name() == "--ranks") {
      if (!TakeFilter(arg, ParseRankRanges, options.selection.ranks)) return std::nullopt;
    } else if (arg.name() == "--steps") {
      if (!TakeFilter(arg, ParseStepRange, options.selection.steps)) return std::nullopt;
    } else if (arg.name() == "--from") {
      if (!TakeFilter(arg, ParseTimelineTime, options.selection.from_ns)) return std::nullopt;
    } else if (arg.name() == "--to") {
      if (!TakeFilter(arg, ParseTimelineTime, options.selection.to_ns)) return std::nullopt;
    } else if (arg.name() == "--kinds") {
      std::optional<uint32_t> kinds;
      if (!TakeFilter(arg, ParseExportKinds, kinds)) return std::nullopt;
      options.selection.kinds = *kinds;
    } else if (arg.name() == "-o" || arg.name() == "--output") {
      options.output = arg.Value();
      if (!options.output) return std::nullopt;
    } else if (!arg.TakeDirectory(options.directory)) {
      return std::nullopt;
    }
  }
  if (!options.format) {
    arg.Complain("missing --format chrome|perfetto|hta (see 'vprof help export')");
    return std::nullopt;
  }
  const ExportSelection& selection = options.selection;
  if (selection.from_ns && selection.to_ns && *selection.to_ns < *selection.from_ns) {
    arg.Complain("--to is before --from: nothing would be left");
    return std::nullopt;
  }
  if (options.directory.empty()) {
    arg.Complain("missing DIR, the directory of *.vtrace files (see 'vprof help export')");
    return std::nullopt;
  }
  return options;
}

// A one-file format: to `out` without -o.
template <typename Write>
int ExportFile(const ExportOptions& options, std::ostream& out, std::ostream& err, Write write) {
  if (!options.output) {
    write(out);
    if (out.flush()) return kExitOk;
    err << "vprof: cannot write the timeline to standard output\n";
    return kExitFailure;
  }
  std::ofstream file(*options.output, std::ios::out | std::ios::trunc | std::ios::binary);
  if (file) write(file);
  file.close();
  if (!file) {
    err << "vprof: cannot write " << *options.output << ": " << std::strerror(errno) << '\n';
    return kExitFailure;
  }
  err << "vprof: timeline written to " << *options.output << '\n';
  return kExitOk;
}

int ExportHta(const ExportPlan& plan, const ExportOptions& options, ExportTally& tally,
              std::ostream& err) {
  const std::string out_dir =
      options.output.value_or((std::filesystem::path(options.directory) / "hta").string());
  const std::optional<size_t> files = WriteHtaTraces(plan, out_dir, tally, err);
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

  ExportPlan plan = PlanExport(*paths);
  for (const std::string& problem : plan.problems) err << "vprof: " << problem << '\n';
  if (!ApplySelection(options->selection, options->directory, *paths, plan, err)) {
    return kExitFailure;
  }
  ExportTally tally;
  switch (*options->format) {
    case ExportFormat::kChrome:
      status = ExportFile(*options, out, err, [&](std::ostream& to) {
        WriteChromeTimeline(plan, options->directory, to, tally);
      });
      break;
    case ExportFormat::kPerfetto:
      status = ExportFile(*options, out, err, [&](std::ostream& to) {
        WritePerfettoTrace(plan, options->directory, to, tally);
      });
      break;
    case ExportFormat::kHta:
      status = ExportHta(plan, *options, tally, err);
      break;
  }
  if (status != kExitOk) return status;
  if (!plan.selection.empty()) {
    err << "vprof: export of " << plan.selection << ": "
        << FormatCount(tally.Kept(), "record", "records") << " kept\n";
  }
  for (const std::string& left_out : plan.left_out) err << "vprof: left out " << left_out << '\n';
  if (const std::string records = tally.LeftOut(); !records.empty()) {
    err << "vprof: " << records << '\n';
  }
  return plan.problems.empty() ? kExitOk : kExitInputNotWhole;
}

}  // namespace vprof::reporter
