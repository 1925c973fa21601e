#include "launch/slurm_environment.h"

#include <cstdlib>
#include <string_view>
#include <vector>

namespace vprof::reporter {
namespace {

std::string Text(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The leading number: SLURM_TASKS_PER_NODE-like values read "4(x2)".
std::optional<int> Number(const char* name) {
  const std::string text = Text(name);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const long number = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || number < 0 || number > 1 << 30) return std::nullopt;
  return static_cast<int>(number);
}

SlurmJob ReadJob() {
  SlurmJob job;
  job.job_id = Text("SLURM_JOB_ID");
  job.step_id = Text("SLURM_STEP_ID");
  job.node_list = Text("SLURM_JOB_NODELIST");
  job.tasks_per_node = Text("SLURM_TASKS_PER_NODE");
  job.nodes = Number("SLURM_JOB_NUM_NODES");
  if (!job.nodes) job.nodes = Number("SLURM_NNODES");
  job.tasks = Number("SLURM_NTASKS");
  return job;
}

// "" when every variable is set, else the message.
std::string Missing(const std::vector<const char*>& required, std::string_view purpose) {
  std::string missing;
  for (const char* name : required) {
    if (Text(name).empty()) missing += std::string(missing.empty() ? "" : ", ") + name;
  }
  if (missing.empty()) return "";
  std::string expected;
  for (const char* name : required) expected += std::string(expected.empty() ? "" : ", ") + name;
  return std::string(purpose) + ": it expects " + expected + " to be set, and " + missing +
         (missing.find(',') == std::string::npos ? " is" : " are") + " not";
}

}  // namespace

std::optional<SlurmJob> ReadSlurmTask(std::string* error) {
  *error = Missing({"SLURM_JOB_ID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID"},
                   "not a task of a Slurm job (run it as 'srun vprof-slurm -- CMD' in a job)");
  if (!error->empty()) return std::nullopt;
  SlurmJob job = ReadJob();
  job.proc_id = Number("SLURM_PROCID");
  job.local_id = Number("SLURM_LOCALID");
  job.node_id = Number("SLURM_NODEID");
  if (!job.proc_id || !job.local_id || !job.node_id) {
    *error = "SLURM_PROCID, SLURM_LOCALID and SLURM_NODEID must be numbers";
    return std::nullopt;
  }
  return job;
}

std::optional<SlurmJob> ReadSlurmAllocation(std::string* error) {
  *error = Missing({"SLURM_JOB_ID"},
                   "not inside a Slurm job (run it in the batch script or "
                   "under salloc, after the profiled srun steps)");
  if (!error->empty()) return std::nullopt;
  SlurmJob job = ReadJob();
  if (!job.nodes) {
    *error =
        "SLURM_JOB_NUM_NODES (or SLURM_NNODES) is not set: the number of nodes to "
        "summarize on is unknown";
    return std::nullopt;
  }
  return job;
}

}  // namespace vprof::reporter
