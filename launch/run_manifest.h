// manifest.json: what a launcher records about a profiled run beside its
// traces (the command, when it ran, how it ended, on which hosts, with which
// settings and injection variables, which vprof), and the check that a folder
// does not already belong to another run.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "launch/profiled_environment.h"

namespace vprof::reporter {

inline constexpr char kManifestName[] = "manifest.json";
// run_id of a Slurm job's folder: this, then the job id.
inline constexpr std::string_view kSlurmRunPrefix = "slurm-";

// The Slurm job a task ran in, as its SLURM_* variables describe it.
struct SlurmJob {
  std::string job_id;
  std::string step_id;         // empty in the batch script itself
  std::string node_list;       // SLURM_JOB_NODELIST, in Slurm's compressed form
  std::string tasks_per_node;  // SLURM_TASKS_PER_NODE, e.g. "4(x2)"
  std::optional<int> nodes;    // SLURM_JOB_NUM_NODES
  std::optional<int> tasks;    // SLURM_NTASKS
  // This task's place (a task record only).
  std::optional<int> proc_id, local_id, node_id;
};

struct Manifest {
  std::string run_id;    // what tells runs apart: "<UTC time>-<suffix>", "slurm-<job id>"
  std::string launcher;  // "vprof run" or "vprof slurm"
  std::vector<std::string> command;
  std::string working_directory;
  std::string output_directory;
  std::string library;
  std::string start_time;  // ISO 8601, UTC
  std::optional<std::string> end_time;
  std::optional<int> exit_status;  // as a shell reports it: 128 + N for signal N
  std::optional<int> signal;
  std::vector<std::string> hosts;
  std::map<std::string, std::string> settings;  // the VPROF_* variables the command saw
  std::vector<InjectionVariable> injection;
  std::optional<SlurmJob> slurm;
  std::optional<std::string> report_file;  // with --report, once written
  std::optional<int> report_exit_status;
};

// Written aside and renamed into place, so that a reader never sees half of
// one, private (0600) and never through a link (reporter/base/safe_file.h). False
// with `error` set when it cannot be written.
bool WriteManifest(const std::string& path, const Manifest& manifest, std::string* error);

// The run_id of the manifest at `path`; none when there is none, and then
// `error` says why when something other than a regular file is there or it
// cannot be read ("" when absent or holding no run_id).
std::optional<std::string> ReadManifestRunId(const std::string& path, std::string* error);

// "20261130T054001Z-3fa2": the time, and a random suffix for runs started in
// the same second.
std::string NewRunId(std::chrono::system_clock::time_point time);

}  // namespace vprof::reporter
