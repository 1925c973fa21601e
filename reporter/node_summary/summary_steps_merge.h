// The steps of a run from the steps its node summaries carry: the ranks of
// every node, and what spans ranks (full steps, median, window) recomputed
// from them, as `vprof report DIR` computes it from the traces.
//
// Nodes step-analyse their own ranks, so they can disagree where
// `vprof report DIR` decides once for all ranks:
// - the source: one node found NVTX steps, another only optimizer kernels.
//   As for a directory, NVTX wins and the other node's ranks are left out.
// - the first measured step (a node whose ranks called cudaProfilerStart
//   later skips more steps): the ranks' steps no longer line up, so the merge
//   keeps no ranks and says why in `problem` and a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reporter/model/report.h"
#include "reporter/node_summary/node_summary.pb.h"

namespace vprof::reporter {

// One summary's part: its Header's steps and its Process packets.
struct SummarySteps {
  std::string path;  // the summary, to name in errors
  const vprof::summary::Header* header = nullptr;
  const std::vector<vprof::summary::Process>* processes = nullptr;
  std::span<const uint32_t> global_index;  // node's process index → merged index
};

struct StepsMerge {
  std::optional<StepsReport> steps;  // none when no node ran GPU kernels
  std::string error;  // "PATH: field: what is wrong" when a summary's steps are malformed
  std::vector<std::string> warnings;
};

// `processes`: the merged report's, indexed by merged index; they give each
// rank its rank and file.
StepsMerge MergeSteps(const std::vector<SummarySteps>& summaries,
                      const std::vector<ProcessReport>& processes);

}  // namespace vprof::reporter
