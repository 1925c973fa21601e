// Which rank a process is: its launcher's rank variable when set, otherwise
// its rank in the largest communicator it joined (the world, in practice).
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

// Processes without NCCL events (a launcher, a data loader) have no rank.
ProcessRank ResolveRank(const ProcessRecord& process);

}  // namespace vprof::reporter
