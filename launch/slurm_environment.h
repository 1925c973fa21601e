// The Slurm job a vprof slurm command runs in, from the SLURM_* variables
// Slurm gives every task of a step (srun) and the batch script.
#pragma once

#include <optional>
#include <string>

#include "launch/run_manifest.h"

namespace vprof::reporter {

// A task of a job step: SLURM_JOB_ID, SLURM_PROCID, SLURM_LOCALID and
// SLURM_NODEID must be set (the rank and node libvprof records come from
// them). None with `error` naming the variables expected and those missing.
std::optional<SlurmJob> ReadSlurmTask(std::string* error);

// The job's allocation (the batch script, salloc, or a task): SLURM_JOB_ID
// and the number of nodes, SLURM_JOB_NUM_NODES (or SLURM_NNODES).
std::optional<SlurmJob> ReadSlurmAllocation(std::string* error);

}  // namespace vprof::reporter
