#include "launch/slurm_command.h"

#include <filesystem>

#include "launch/launch.h"
#include "launch/library_locator.h"
#include "launch/slurm_environment.h"
#include "reporter/base/exit_status.h"
#include "reporter/node_summary/summary_commands.h"
#include "reporter/node_summary/summary_file.h"
#include "reporter/node_summary/summary_merge.h"
#include "reporter/output/report_output.h"
#include "reporter/trace/trace_directory.h"

extern char** environ;

namespace vprof::reporter {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCommand = "slurm";

std::string JobFolder(const LaunchOptions& options, const SlurmJob& job) {
  return options.output.value_or("vprof-" + job.job_id);
}

// One task of a step: its trace goes with the other tasks' into the job's
// folder; task 0 of the job's first profiled step writes the job's
// manifest.json, every task its own record tasks/<step>.<SLURM_PROCID>.json.
int ProfileTask(const LaunchOptions& options, std::ostream& err) {
  std::string error;
  const std::optional<SlurmJob> job = ReadSlurmTask(&error);
  if (!job) {
    err << "vprof: slurm: " << error << '\n';
    return kExitUsage;
  }
  std::optional<Launch> launch = PrepareLaunch(options, std::string(kSlurmRunPrefix) + job->job_id,
                                               JobFolder(options, *job), kCommand, err);
  if (!launch) return kExitFailure;
  const fs::path folder = launch->manifest.output_directory;
  const fs::path manifest_path = folder / kManifestName;
  // PrepareLaunch refused a manifest it cannot read; one that became so since
  // is refused by SaveManifest.
  std::string unreadable;
  if (*job->proc_id == 0 &&
      ReadManifestRunId(manifest_path.string(), &unreadable) != launch->manifest.run_id) {
    Manifest job_manifest = launch->manifest;
    job_manifest.hosts.clear();  // each task's is in its record; the job's are slurm.node_list
    job_manifest.slurm = *job;
    job_manifest.slurm->proc_id = job_manifest.slurm->local_id = job_manifest.slurm->node_id =
        std::nullopt;
    if (!SaveManifest(manifest_path.string(), job_manifest, kCommand, err)) {
      return kExitFailure;
    }
  }
  launch->manifest.slurm = job;
  const ChildEnd end = RunLaunch(*launch);
  std::error_code ignored;
  fs::create_directories(folder / "tasks", ignored);
  // The batch script itself is a step without a SLURM_STEP_ID.
  const std::string step = job->step_id.empty() ? "batch" : job->step_id;
  SaveManifest((folder / "tasks" / (step + "." + std::to_string(*job->proc_id) + ".json")).string(),
               launch->manifest, kCommand, err);
  return end.status;
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

// Runs `vprof report --node-summary` on every node of the job at once, as a
// job step with one task per node. Returns srun's exit status.
int SummarizeNodes(const SlurmJob& job, const fs::path& folder, const fs::path& summaries,
                   const AnalysisOptions& analysis) {
  const std::string nodes = std::to_string(*job.nodes);
  // Several hosts' times must be put on CLOCK_REALTIME; one host keeps its
  // CLOCK_MONOTONIC, as `vprof report DIR` does, so both give one report.
  const std::string clock = *job.nodes > 1 ? "realtime" : "monotonic";
  std::vector<std::string> step = {"srun",
                                   "--nodes=" + nodes,
                                   "--ntasks=" + nodes,
                                   "--ntasks-per-node=1",
                                   "--kill-on-bad-exit=0",
                                   SelfExecutable(),
                                   "report",
                                   std::string(kNodeSummaryOption),
                                   summaries.string(),
                                   "--clock",
                                   clock};
  const std::vector<std::string> analysis_arguments = AnalysisArguments(analysis);
  step.insert(step.end(), analysis_arguments.begin(), analysis_arguments.end());
  step.push_back(folder.string());
  return RunChild(step, CurrentEnvironment()).status;
}

// Per node in parallel, then merged: the report of the job's folder, written
// into it.
int ReportJob(const LaunchOptions& options, std::ostream& out, std::ostream& err) {
  std::string error;
  const std::optional<SlurmJob> job = ReadSlurmAllocation(&error);
  if (!job) {
    err << "vprof: slurm: " << error << '\n';
    return kExitUsage;
  }
  const fs::path folder = fs::absolute(JobFolder(options, *job)).lexically_normal();
  if (int status = kExitOk; !ListTraceFilesOrSay(folder.string(), err, &status)) return status;
  // Summaries of an earlier report (maybe of other nodes) must not be merged in.
  const fs::path summaries = folder / "summaries";
  std::error_code fs_error;
  fs::remove_all(summaries, fs_error);
  fs::create_directories(summaries, fs_error);
  if (fs_error) {
    err << "vprof: slurm: cannot make " << summaries.string() << ": " << fs_error.message() << '\n';
    return kExitFailure;
  }

  const int step_status = SummarizeNodes(*job, folder, summaries, options.report_analysis);
  const bool step_failed = step_status != kExitOk && step_status != kExitInputNotWhole;
  if (step_failed) {
    err << "vprof: slurm: the per-node summary step (srun) exited with " << step_status
        << "; merging the summaries that were written\n";
  }
  const MergeResult merged = MergeSummaries(ListSummaryFiles(summaries.string()));
  if (!merged.report) {
    err << "vprof: slurm: " << merged.error << '\n';
    return kExitFailure;
  }
  for (const std::string& warning : merged.warnings) err << "vprof: " << warning << '\n';
  const int status =
      EmitReportIntoFolder(*merged.report, folder.string(), options.report_format, out, err);
  if (status == kExitFailure || step_failed) return kExitFailure;
  return merged.traces_missing ? kExitInputNotWhole : status;
}

}  // namespace

std::string SlurmUsage() {
  return "usage: srun [srun options] vprof-slurm [options] [--] CMD [ARGS...]\n"
         "       vprof-slurm --report [--output DIR] [--report-format text|json|markdown|html]\n"
         "(vprof-slurm is 'vprof slurm')\n"
         "\n"
         "In a step, profiles each task like 'vprof run': every task's trace goes to\n"
         "./vprof-<SLURM_JOB_ID>/ (shared by the job's nodes and steps), with manifest.json\n"
         "(the job: id, step, node list, tasks per node, command, settings; written by the\n"
         "first profiled step) and tasks/<step>.<SLURM_PROCID>.json (each task's host, ids,\n"
         "times and exit status). A folder of another job is refused.\n"
         "Ranks come from SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID (RANK etc. when set).\n"
         "\n"
         "With --report and no command, in the batch script after the profiled steps:\n"
         "summarizes each node's traces in parallel (a step of one task per node, writing\n"
         "DIR/summaries/<host>.vsummary), merges the summaries into DIR/report.txt (or\n"
         "report.json) and exits with the report's status (see 'vprof help report').\n"
         "\n"
         "options:\n" +
         std::string(kLaunchOptionsHelp) +
         "\n"
         "example batch script:\n"
         "  #!/bin/bash\n"
         "  #SBATCH --nodes=2 --ntasks-per-node=8 --gpus-per-node=8\n"
         "  export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)\n"
         "  srun vprof-slurm -- python3 train.py --config big.yaml\n"
         "  vprof-slurm --report          # writes vprof-$SLURM_JOB_ID/report.txt\n"
         "\n"
         "exit status (task): CMD's own (128+N when signal N killed it); 2 outside a job\n"
         "step (no SLURM_JOB_ID, SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID); 1 when CMD could\n"
         "not be profiled (no libvprof.so, a folder of another job).\n";
}

int RunSlurmCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::optional<LaunchOptions> options = ParseLaunchOptions(args, kCommand, err);
  if (!options) return kExitUsage;
  if (options->report && options->command.empty()) return ReportJob(*options, out, err);
  if (options->report) {
    err << "vprof: slurm: --report with a command: a task cannot wait for the others; run "
           "'vprof-slurm --report' after the srun step (see 'vprof help slurm')\n";
    return kExitUsage;
  }
  if (options->command.empty()) {
    err << "vprof: slurm: missing the command to profile (see 'vprof help slurm')\n";
    return kExitUsage;
  }
  return ProfileTask(*options, err);
}

}  // namespace vprof::reporter
