// A process's NVTX phase totals (nvtx_phase_record.h) to and from a node
// summary. They concern one process only, so a summary carries them whole;
// this mirrors NvtxPhaseRecord field by field and must follow it when it grows.
#pragma once

#include <optional>

#include "reporter/node_summary/node_summary.pb.h"
#include "reporter/phases/inferred_phase_record.h"
#include "reporter/phases/nvtx_phase_record.h"

namespace vprof::reporter {

vprof::summary::NvtxPhaseTotals EncodeNvtxPhases(const NvtxPhaseRecord& record);
NvtxPhaseRecord DecodeNvtxPhases(const vprof::summary::NvtxPhaseTotals& totals);

// The same for the phase-inference input (inferred_phase_record.h). None when
// the process has none, or its role is not one this vprof knows.
vprof::summary::InferredPhaseInput EncodeInferredPhaseInput(const InferredPhaseInput& input);
std::optional<InferredPhaseInput> DecodeInferredPhaseInput(const vprof::summary::Process& process);

}  // namespace vprof::reporter
