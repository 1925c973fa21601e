#include "launch/run_command.h"

#include <cstdlib>
#include <filesystem>

#include "launch/child_process.h"
#include "launch/launch.h"
#include "reporter/base/exit_status.h"
#include "reporter/output/report_output.h"
#include "reporter/phases/phase_rules.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kCommand = "run";

// The report of the run's folder, into the folder. Returns the report's exit
// status (reporter/README.md).
int ReportFolder(const std::string& folder, ReportFormat format, const AnalysisOptions& analysis,
                 std::ostream& out, std::ostream& err) {
  int status = kExitOk;
  const auto paths = ListTraceFilesOrSay(folder, err, &status);
  if (!paths) return status;
  const PhaseRulesScope phase_rules(analysis.phase_rules);
  return EmitReportIntoFolder(BuildReport(folder, *paths, {}, analysis.steps), folder, format, out,
                              err);
}

}  // namespace

std::string RunUsage() {
  return "usage: vprof run [options] [--] CMD [ARGS...]\n"
         "\n"
         "Runs CMD with libvprof.so preloaded (put before any LD_PRELOAD already set) and\n"
         "named by CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH and NCCL_PROFILER_PLUGIN\n"
         "(each unless another tool set it), so CMD and every process it starts, even one\n"
         "whose launcher replaced LD_PRELOAD, write a trace into one folder, by default\n"
         "./vprof-<run id>/, with a manifest.json saying what ran, when, where, how it\n"
         "ended and with which settings. Works for a plain process, torchrun, and\n"
         "`ray start --head --block`.\n"
         "\n"
         "options:\n" +
         std::string(kLaunchOptionsHelp) +
         "\n"
         "exit status: CMD's own (128+N when a signal N killed it), also with --report,\n"
         "whose own status is recorded in manifest.json (report_exit_status); 2 for usage\n"
         "errors, 1 when CMD could not be profiled (no libvprof.so, a folder that cannot be\n"
         "made or holds another run's manifest.json), 127 when CMD is not found (no folder\n"
         "is made).\n"
         "SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed on to CMD.\n";
}

int RunRunCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::optional<LaunchOptions> options = ParseLaunchOptions(args, kCommand, err);
  if (!options) return kExitUsage;
  if (options->command.empty()) {
    err << "vprof: run: missing the command to profile (see 'vprof help run')\n";
    return kExitUsage;
  }
  // A command that cannot start leaves no run folder behind, as a shell would leave nothing.
  if (!CanExecute(options->command.front(), std::getenv("PATH"))) {
    err << "vprof: run: command not found: " << options->command.front() << '\n';
    return kCommandNotFound;
  }
  const std::string run_id = NewRunId(std::chrono::system_clock::now());
  std::optional<Launch> launch =
      PrepareLaunch(*options, run_id, options->output.value_or("vprof-" + run_id), kCommand, err);
  if (!launch) return kExitFailure;
  const std::string folder = launch->manifest.output_directory;
  const std::string manifest_path = (std::filesystem::path(folder) / kManifestName).string();
  if (!SaveManifest(manifest_path, launch->manifest, kCommand, err)) return kExitFailure;
  err << "vprof: profiling into " << folder << '\n';

  const ChildEnd end = RunLaunch(*launch);
  if (options->report) {
    const int report_status =
        ReportFolder(folder, options->report_format, options->report_analysis, out, err);
    launch->manifest.report_exit_status = report_status;
    if (report_status == kExitOk || report_status == kExitInputNotWhole) {
      launch->manifest.report_file = ReportFileIn(folder, options->report_format);
    }
  }
  SaveManifest(manifest_path, launch->manifest, kCommand, err);
  return end.status;
}

}  // namespace vprof::reporter
