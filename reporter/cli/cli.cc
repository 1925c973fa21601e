#include "reporter/cli/cli.h"

#include <optional>
#include <string_view>

#include "common/vprof_build_info.h"
#include "launch/run_command.h"
#include "launch/slurm_command.h"
#include "launch/trigger_command.h"
#include "reporter/base/protobuf_log.h"
#include "reporter/cli/report_command.h"
#include "reporter/diff/diff_command.h"
#include "reporter/export/export_command.h"
#include "reporter/whatif/whatif_command.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kUsage =
    "usage: vprof <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  run [options] -- CMD ...\n"
    "                 run CMD (and all it starts) with vprof, into ./vprof-<run id>/\n"
    "  slurm [options] -- CMD ...    (as 'srun vprof-slurm -- CMD' in a Slurm job)\n"
    "  slurm --report [options]\n"
    "                 profile each task of a Slurm step; report the job node by node\n"
    "  report DIR [--format text|json|markdown|html] [-o|--output FILE] [--strict]\n"
    "             [--contract FILE] [--audit FILE] [--step-pattern REGEX] [--warmup N]\n"
    "             [--phase-rules FILE] [-q|--quiet]\n"
    "                 summarize the traces (*.vtrace) a run wrote to DIR\n"
    "  diff A B       compare two runs (trace directories or JSON reports)\n"
    "  whatif DIR [--faster PATTERN=FACTOR] [--comm-faster F] [--no-straggler]\n"
    "             [--no-host-gaps] [--rank-faster RANK=F]\n"
    "                 what a change would save: the measured steps replayed with it\n"
    "  export --format chrome|perfetto|hta [-o OUT] [filters] DIR\n"
    "                 the traces as timelines (Perfetto, chrome://tracing, HTA)\n"
    "  trigger DIR [--seconds S] [--in S]\n"
    "                 record GPU activity for S seconds in every process of the run\n"
    "                 writing into DIR (those under VPROF_DEEP=trigger or ON/PERIOD)\n"
    "  help [COMMAND] show this help, or a command's\n"
    "  --version      vprof's version and build\n"
    "\n"
    "exit statuses, the same in every command (each command's help says its own):\n"
    "  0    done; every input was whole\n"
    "  1    failure: the output could not be written, or (whatif) nothing to project\n"
    "  2    usage error: a bad option or value, or an input that is not vprof's\n"
    "  3    written, but some trace was cut, corrupt or skipped (each is named)\n"
    "  4    report written, but a --strict run differs from what it requested\n"
    "  126  run, slurm: the command to profile could not be executed\n"
    "  127  run, slurm: the command to profile was not found\n"
    "  run and slurm otherwise exit with the command's status (128+N for signal N)\n";

// The help of one command, or none for a command that does not exist.
std::optional<std::string> CommandUsage(std::string_view command) {
  if (command == "report") return ReportUsage();
  if (command == "export") return ExportUsage();
  if (command == "diff") return DiffUsage();
  if (command == "whatif") return WhatifUsage();
  if (command == "run") return RunUsage();
  if (command == "slurm") return SlurmUsage();
  if (command == "trigger") return TriggerUsage();
  return std::nullopt;
}

bool AsksForHelp(const std::vector<std::string>& args) {
  return !args.empty() && (args[0] == "--help" || args[0] == "-h");
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ScopedProtobufLog protobuf_log(err);
  if (args.empty()) {
    err << kUsage;
    return kExitUsage;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--version") {
    out << "vprof " << kVprofVersion << " (build " << kVprofBuildId << ")\n";
    return kExitOk;
  }
  if (command == "--help" || command == "-h" || command == "help") {
    if (command == "help" && !rest.empty()) {
      const std::optional<std::string> usage = CommandUsage(rest[0]);
      if (!usage) {
        err << "vprof: help: unknown command '" << rest[0] << "'\n" << kUsage;
        return kExitUsage;
      }
      out << *usage;
    } else {
      out << kUsage;
    }
    return kExitOk;
  }
  if (command == "report") return RunReportCommand(rest, out, err);
  if (command == "export") return RunExportCommand(rest, out, err);
  if (command == "diff") return RunDiffCommand(rest, out, err);
  if (command == "whatif") {
    if (AsksForHelp(rest)) {
      out << WhatifUsage();
      return kExitOk;
    }
    return RunWhatifCommand(rest, out, err);
  }
  if (command == "trigger") {
    if (AsksForHelp(rest)) {
      out << TriggerUsage();
      return kExitOk;
    }
    return RunTriggerCommand(rest, out, err);
  }
  // The launchers read their options only up to the command they run.
  if ((command == "run" || command == "slurm") && AsksForHelp(rest)) {
    out << *CommandUsage(command);
    return kExitOk;
  }
  if (command == "run") return RunRunCommand(rest, out, err);
  if (command == "slurm") return RunSlurmCommand(rest, out, err);
  err << "vprof: unknown command '" << command << "'\n" << kUsage;
  return kExitUsage;
}

}  // namespace vprof::reporter
