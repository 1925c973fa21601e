// The actual side of requested vs actual, beyond NCCL's algorithm choices:
// the shapes of the collectives each rank issued (function, data type,
// reduction op, and the element count each rank passed: the shard layout) and
// where each rank ran (host and GPU). Both go into the actual fingerprint, as
// shapes: which ranks issued each collective shape, not how often (a longer
// run is not a different run); which ranks share a host and on which device
// ordinal, not the host names (the same job scheduled on other nodes is not a
// different run).
#pragma once

#include <cstdint>
#include <vector>

#include "reporter/base/json_node.h"
#include "reporter/ingest/process_record.h"
#include "reporter/model/consistency_report.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// Over the processes at `communicating` (indexes into records and processes),
// by shape; `left_out` gets the calls of shapes past the processes' caps.
std::vector<CollectiveShapeReport> CollectiveShapesOf(const std::vector<ProcessRecord>& records,
                                                      const std::vector<ProcessReport>& processes,
                                                      const std::vector<size_t>& communicating,
                                                      uint64_t& left_out);

// Ranked processes by rank, then the others by file.
std::vector<RankPlacement> PlacementOf(const std::vector<ProcessRecord>& records,
                                       const std::vector<ProcessReport>& processes,
                                       const std::vector<size_t>& communicating);

// [{"func", "dtype", "red_op", "count", "comm_size", "ranks", "unranked"}, …].
JsonNode CollectiveShapesJson(const std::vector<CollectiveShapeReport>& shapes);
// [{"rank", "host", "device"}, …] of the ranked processes: "host" numbers the
// hosts in the order of the first rank on each.
JsonNode PlacementJson(const std::vector<RankPlacement>& placement);

}  // namespace vprof::reporter
