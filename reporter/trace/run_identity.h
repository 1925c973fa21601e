// Whether the trace files of a folder come from one run, and which ranks of
// it have no trace, judged from their RunHeaders alone (the first packet of
// each file, so the check costs one small read per file).
//
// Two runs are told apart by:
//  - different Slurm job ids (SlurmInfo.job_id);
//  - outside Slurm, different torchrun run ids (TORCHELASTIC_RUN_ID from the
//    header's environment: `torchrun --standalone` makes a new one for every
//    run, and its random MASTER_PORT makes each run a group of its own below);
//  - two world sizes in one group, or the same rank held by two rank
//    processes of one group. A group is the processes that share a Slurm step
//    and a rendezvous (MASTER_ADDR and MASTER_PORT from the header's
//    environment): one NCCL world. A rank process has RankInfo.rank set, is no forked child, and
//    its parent (ppid, same host) is not a traced process of the same rank (an exec'd child
//    inherits its parent's RANK).
// Steps of one Slurm job, or worker groups with their own rendezvous (RL
// frameworks run several), are one run: they form separate groups.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vprof::reporter {

// What a trace's RunHeader says about the run its process belonged to.
struct TraceIdentity {
  std::string path;
  std::string host;
  uint32_t pid = 0;
  uint32_t ppid = 0;
  bool forked_child = false;
  std::string slurm_job;     // empty outside Slurm
  std::string slurm_step;    // empty outside Slurm and in a batch script
  std::string rendezvous;    // "MASTER_ADDR:MASTER_PORT"; empty when neither is set
  std::string torchrun_run;  // TORCHELASTIC_RUN_ID; empty when not set
  std::optional<int32_t> rank;
  std::optional<int32_t> world_size;  // 1..kMostRanks (rank_bounds.h)
  // RunHeader.rank.world_size when above kMostRanks: not believed, and
  // world_size left unknown.
  std::optional<int32_t> ignored_world_size;
  uint64_t start_realtime_ns = 0;
};

// None when the file has no readable RunHeader first (the report says why).
std::optional<TraceIdentity> ReadTraceIdentity(const std::string& path);

struct RunCheck {
  // Why the traces are of more than one run, for people; empty when one.
  std::string mixed_runs;
  // Per group whose world size is known: the ranks without a trace, for
  // people ("world size 8 (rendezvous node0:29500): no trace of ranks 3, 5").
  std::vector<std::string> missing_ranks;
};

RunCheck CheckOneRun(const std::vector<TraceIdentity>& traces);

}  // namespace vprof::reporter
