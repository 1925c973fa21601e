// What the run header says about this process, collected at initialisation
// (the environment is read once, before the program can change it under us).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vprof {

struct RankVars {
  std::optional<int32_t> rank, local_rank, world_size, local_world_size, node_rank;
  std::string source;  // "torch", "slurm", "ompi" or ""
};

struct SlurmVars {
  std::string job_id, step_id, node_list, tasks_per_node;
  std::optional<int32_t> proc_id, local_id, node_id;
};

struct EnvEntry {
  std::string name, value;
  bool redacted = false;
};

struct LibraryVersions {
  uint32_t nccl = 0, cuda_runtime = 0, cuda_driver = 0;
};

struct RunInfo {
  std::string host;
  pid_t pid = 0;
  pid_t ppid = 0;
  bool forked_child = false;
  std::vector<std::string> argv;  // secret option values and URL passwords redacted
  RankVars rank;
  SlurmVars slurm;
  std::vector<EnvEntry> env;
  uint64_t start_ns = 0;
  uint64_t start_realtime_ns = 0;
  LibraryVersions versions;
};

using EnvLookup = const char* (*)(const char* name);

// Rank variables by family; the first family whose rank variable is set wins:
// torchrun's (RANK, ...), then Slurm's (SLURM_PROCID, ...), then Open MPI's
// (OMPI_COMM_WORLD_RANK, ...). The table in run_info.cc names them all.
RankVars ReadRankVars(EnvLookup lookup);
SlurmVars ReadSlurmVars(EnvLookup lookup);

// The variables worth keeping from environ ("NAME=value" strings): the
// NCCL_, CUDA_, VPROF_, TORCH_, VIME_, SLURM_ and OMPI_ families and the rank
// variables, with values of names that look secret and URL passwords in the
// others redacted (secret_text.h). Sorted by name.
std::vector<EnvEntry> SelectEnv(char** environ_strings);

// Fills everything from the live process but the versions.
RunInfo CollectRunInfo();

// Asks the NCCL and CUDA libraries already loaded in this process for their
// versions; loads nothing, initialises nothing. Zero where not loaded.
LibraryVersions DetectVersions();

}  // namespace vprof
