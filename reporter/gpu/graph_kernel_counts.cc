#include "reporter/gpu/graph_kernel_counts.h"

namespace vprof::reporter {

void GraphKernelCounts::Add(const vprof::trace::GpuGraphNodes& graph) {
  uint64_t kernels = graph.unnamed_kernels();
  for (const auto& named : graph.kernel()) kernels += named.count();
  uint64_t& listed = by_list_[{graph.graph_id(), graph.graph_exec_id()}];
  listed += kernels;
  for (const uint32_t id : {graph.graph_id(), graph.graph_exec_id()}) {
    if (id != 0) by_id_[id] = listed;
  }
}

std::optional<uint64_t> GraphKernelCounts::Of(uint32_t graph_id) const {
  if (graph_id == 0) return std::nullopt;
  const auto found = by_id_.find(graph_id);
  if (found == by_id_.end()) return std::nullopt;
  return found->second;
}

}  // namespace vprof::reporter
