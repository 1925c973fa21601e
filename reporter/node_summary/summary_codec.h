// Translates between what the reporter gathers in memory (build.h's
// GatheredTraces) and the packets of a node summary (node_summary.proto).
// Process indexes in a summary are the node's; decoding maps them through
// `global_index` (node's index → index in the merged run), and gives none
// for a packet that names a process the summary does not have.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reporter/collectives/collective_matcher.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/ingest/process_record.h"
#include "reporter/node_summary/node_summary.pb.h"

namespace vprof::reporter {

vprof::summary::Process EncodeProcess(const ProcessRecord& record,
                                      const ParticipantStats& participant);
// `directory` is where the trace file lies (the record keeps its full path).
ProcessRecord DecodeProcess(const vprof::summary::Process& process, const std::string& directory);
ParticipantStats DecodeParticipant(const vprof::summary::Process& process);

vprof::summary::OpTotals EncodeOpTotals(const OpKey& key, const OpStats& stats);
OpKey DecodeOpKey(const vprof::summary::OpTotals& totals);
std::optional<OpStats> DecodeOpStats(const vprof::summary::OpTotals& totals,
                                     std::span<const uint32_t> global_index);

vprof::summary::TeardownTotals EncodeTeardown(uint64_t comm_id, NcclFunction function,
                                              const LifecycleStats& calls);
LifecycleStats DecodeTeardown(const vprof::summary::TeardownTotals& totals);

// A collective the node did not see whole; `pending.arrivals` must not be empty.
vprof::summary::Partial EncodePartial(const PendingCollective& pending);
// The member calls it holds, as the matcher takes them.
std::optional<std::vector<CollectiveCall>> DecodePartial(const vprof::summary::Partial& partial,
                                                         std::span<const uint32_t> global_index);

// NcclFunctionFromName, plus the "ncclSend/ncclRecv" of matched pairs.
NcclFunction DecodeFunction(const std::string& name);

}  // namespace vprof::reporter
