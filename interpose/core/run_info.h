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

// What the RunHeader records of the command line and the environment at most:
// the header is one packet of the writer's 1 MiB encode buffer, and one that
// does not fit (a 1 MiB argv, 10,000 NCCL_* variables) would turn profiling off.
// Sizes are of the text as written (valid UTF-8). The header says what the caps
// left out (HeaderCut), and the report says so.
inline constexpr size_t kMaxArgvBytes = size_t{64} << 10;
inline constexpr size_t kMaxEnvBytes = size_t{256} << 10;  // names and values
inline constexpr size_t kMaxEnvValueBytes = size_t{4} << 10;

struct HeaderCut {
  uint64_t argv_args_cut = 0;      // arguments cut or left out past kMaxArgvBytes
  uint64_t env_vars_left_out = 0;  // kept variables past kMaxEnvBytes, by name
  uint64_t env_values_cut = 0;     // values (and Slurm fields) cut to kMaxEnvValueBytes
  bool any() const { return argv_args_cut + env_vars_left_out + env_values_cut > 0; }
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
  HeaderCut cut;
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

// Holds `argv` to kMaxArgvBytes: the argument that crosses it is cut between
// characters, the ones after it left out; each counted in cut->argv_args_cut.
void CapArgv(std::vector<std::string>* argv, HeaderCut* cut);

// Holds each value to kMaxEnvValueBytes and all names and values to
// kMaxEnvBytes (variables past it, in `env`'s order, left out); counted in `cut`.
void CapEnv(std::vector<EnvEntry>* env, HeaderCut* cut);

// Fills everything from the live process but the versions.
RunInfo CollectRunInfo();

// Asks the NCCL and CUDA libraries already loaded in this process for their
// versions; loads nothing, initialises nothing. Zero where not loaded.
LibraryVersions DetectVersions();

}  // namespace vprof
