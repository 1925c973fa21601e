// What one replay of each CUDA graph runs, from the graphs' node lists
// (GpuGraphNodes): what a replay recorded whole (GpuGraphReplay) ran, since
// CUPTI writes no record of its nodes then. The GPU reader counts the
// replays' work with it and the timelines label each replay with it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "reporter/base/trace_forward.h"

namespace vprof::reporter {

// A graph's kernel (named or not), fill and copy nodes.
struct GraphNodes {
  uint64_t kernels = 0;
  uint64_t memsets = 0;
  uint64_t memcpys = 0;
};

class GraphNodeCounts {
 public:
  // A graph of many names comes in several messages with the same ids, each
  // adding its names; a graph instantiated twice is listed twice.
  void Add(const vprof::trace::GpuGraphNodes& graph);

  // What a replay of `graph_id` (a graph or an executable graph id) ran;
  // none when no list of it was read.
  std::optional<GraphNodes> Of(uint32_t graph_id) const;

 private:
  std::unordered_map<uint32_t, GraphNodes> by_id_;
  std::map<std::pair<uint32_t, uint32_t>, GraphNodes> by_list_;  // (graph, exec) id
};

}  // namespace vprof::reporter
