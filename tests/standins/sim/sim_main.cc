// sim_main: one rank of the simulated data-parallel training job. Reads its place in the job
// from the launcher's environment (RANK, WORLD_SIZE, LOCAL_RANK, VPROF_SIM_RDZV; under srun
// SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID), builds the
// world communicator and, by ncclCommSplit, a weight-sync communicator, and trains.
#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "collective_log.h"
#include "nccl.h"
#include "rendezvous.h"
#include "sim_options.h"
#include "trainer.h"

namespace {

struct Placement {
  int rank = 0;
  int nranks = 1;
  int local_rank = 0;
  std::string rendezvous_dir;
};

int EnvInt(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoi(text) : fallback;
}

// torchrun's variables, else a Slurm task's (srun sets no RANK).
bool ReadPlacement(Placement* placement, std::string* error) {
  placement->rank = EnvInt("RANK", EnvInt("SLURM_PROCID", 0));
  placement->nranks = EnvInt("WORLD_SIZE", EnvInt("SLURM_NTASKS", 1));
  placement->local_rank = EnvInt("LOCAL_RANK", EnvInt("SLURM_LOCALID", placement->rank));
  const char* dir = std::getenv("VPROF_SIM_RDZV");
  placement->rendezvous_dir = dir != nullptr ? dir : "";
  if (placement->nranks < 1 || placement->rank < 0 || placement->rank >= placement->nranks) {
    *error = "RANK/WORLD_SIZE out of range";
    return false;
  }
  if (placement->nranks > 1 && placement->rendezvous_dir.empty()) {
    *error = "WORLD_SIZE > 1 needs VPROF_SIM_RDZV (run under sim_launch)";
    return false;
  }
  return true;
}

bool CreateCommunicators(const Placement& placement, bool tensor_parallel,
                         sim::Communicators* comms, std::string* error) {
  comms->rank = placement.rank;
  comms->nranks = placement.nranks;
  ncclUniqueId id;
  if (placement.nranks == 1) {
    if (ncclGetUniqueId(&id) != ncclSuccess) {
      *error = "ncclGetUniqueId failed";
      return false;
    }
  } else if (!sim::ShareUniqueId(placement.rendezvous_dir, placement.rank, &id, error)) {
    return false;
  }
  ncclResult_t result = ncclCommInitRank(&comms->world, placement.nranks, id, placement.rank);
  if (result != ncclSuccess) {
    *error = std::string("ncclCommInitRank: ") + ncclGetErrorString(result);
    return false;
  }
  result = ncclCommSplit(comms->world, 0, placement.rank, &comms->weight_sync, nullptr);
  if (result == ncclSuccess && tensor_parallel) {
    result = ncclCommSplit(comms->world, 0, placement.rank, &comms->tensor_parallel, nullptr);
  }
  if (result != ncclSuccess) {
    *error = std::string("ncclCommSplit: ") + ncclGetErrorString(result);
    return false;
  }
  return true;
}

bool WriteLog(const sim::SimOptions& options, int rank, const sim::CollectiveLog& log,
              std::string* error) {
  std::error_code ignored;
  std::filesystem::create_directories(options.log_dir, ignored);
  const std::string path = options.log_dir + "/sim.rank" + std::to_string(rank) + ".jsonl";
  if (!log.WriteJsonLines(path)) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

bool SelectDevice(int local_rank, std::string* error) {
  int device_count = 0;
  if (cudaGetDeviceCount(&device_count) != cudaSuccess ||
      cudaSetDevice(local_rank % device_count) != cudaSuccess) {
    *error = "cannot select a CUDA device";
    return false;
  }
  return true;
}

// A child that exits at once through exit(), so that the handlers registered in this process
// run in it. False unless it exits 0.
bool ForkExitingChild(std::string* error) {
  const pid_t pid = fork();
  if (pid < 0) {
    *error = "cannot fork";
    return false;
  }
  if (pid == 0) std::exit(0);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = "the forked child ended with wait status " + std::to_string(status);
    return false;
  }
  return true;
}

bool TrainRank(const sim::SimOptions& options, const Placement& placement, sim::CollectiveLog* log,
               std::string* error) {
  std::this_thread::sleep_for(std::chrono::milliseconds(options.cuda_after_ms));
  if (!SelectDevice(placement.local_rank, error)) return false;
  sim::Communicators comms{};
  const bool trained = CreateCommunicators(placement, options.tp_elems > 0, &comms, error) &&
                       sim::Train(options, comms, log, error);
  // Also after a failure; destroying a communicator that was never created (NULL) is allowed.
  ncclCommDestroy(comms.tensor_parallel);
  ncclCommDestroy(comms.weight_sync);
  ncclCommDestroy(comms.world);
  return trained && (!options.fork_child || ForkExitingChild(error));
}

// With --train-in-child: the parent's part, waiting for the child that trains; the child's
// returns -1 and goes on.
int WaitForTrainingChild() {
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("sim_train: fork");
    return 1;
  }
  if (pid == 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}

int Run(int argc, char** argv) {
  sim::SimOptions options;
  if (!sim::ParseOptions(argc, argv, &options)) return 2;
  if (options.train_in_child) {
    if (const int parent = WaitForTrainingChild(); parent >= 0) return parent;
  }
  Placement placement;
  sim::CollectiveLog log;
  std::string error;
  if (!ReadPlacement(&placement, &error) || !TrainRank(options, placement, &log, &error) ||
      (!options.log_dir.empty() && !WriteLog(options, placement.rank, log, &error))) {
    std::fprintf(stderr, "sim_train rank %d: %s\n", placement.rank, error.c_str());
    return 1;
  }
  if (placement.rank == 0) {
    std::printf("sim_train: %d ranks, %d steps, %d all-reduce, %d all-gather, %d broadcast, ok\n",
                placement.nranks, options.steps, log.Count("ncclAllReduce"),
                log.Count("ncclAllGather"), log.Count("ncclBroadcast"));
    // Now, not at exit: a test that reads the pipe learns when the run ended
    // and the exit's handlers began.
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int sim_main(int argc, char** argv) {
  return Run(argc, argv);
}
