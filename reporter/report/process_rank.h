// Which rank a process is: its launcher's rank variable when set, otherwise
// its rank in the largest communicator it joined (the world, in practice).
// A process is a rank when it called NCCL, or when its launcher gave it a rank
// and it ran GPU kernels: a one-process torchrun job uses no NCCL, while a
// data-loader worker forked from a rank inherits RANK but runs no kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reporter/ingest/process_record.h"

namespace vprof::reporter {

struct ProcessRank {
  std::optional<int32_t> rank;
  std::string source;  // "header", "communicator", or "" (no rank)
};

bool IsRankProcess(const ProcessRecord& process);

// Processes that are no rank (a launcher, a data loader) have none.
ProcessRank ResolveRank(const ProcessRecord& process);

}  // namespace vprof::reporter
