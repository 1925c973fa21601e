#include "reporter/gpu/graph_node_counts.h"

#include "vprof_trace.pb.h"

namespace vprof::reporter {

void GraphNodeCounts::Add(const vprof::trace::GpuGraphNodes& graph) {
  GraphNodes& listed = by_list_[{graph.graph_id(), graph.graph_exec_id()}];
  listed.kernels += graph.unnamed_kernels();
  for (const auto& named : graph.kernel()) listed.kernels += named.count();
  listed.memsets += graph.memset_nodes();
  listed.memcpys += graph.memcpy_nodes();
  for (const uint32_t id : {graph.graph_id(), graph.graph_exec_id()}) {
    if (id != 0) by_id_[id] = listed;
  }
}

std::optional<GraphNodes> GraphNodeCounts::Of(uint32_t graph_id) const {
  if (graph_id == 0) return std::nullopt;
  const auto found = by_id_.find(graph_id);
  if (found == by_id_.end()) return std::nullopt;
  return found->second;
}

}  // namespace vprof::reporter
