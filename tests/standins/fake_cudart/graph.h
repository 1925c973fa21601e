// Fake CUDA graphs. A stream between cudaStreamBeginCapture and cudaStreamEndCapture appends the
// kernels, copies and fills queued on it to a Graph instead of running them; cudaGraphInstantiate
// copies the graph's nodes into a GraphExec, and each cudaGraphLaunch queues one GraphLaunchOp
// (stream.h) whose replay runs the nodes in capture order.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "event.h"
#include "stream.h"

namespace fake_cudart {

// One captured operation, with its node id: unique in the process, from 1, as CUPTI's
// graphNodeId is unique.
struct GraphNode {
  NodeOp op;
  uint64_t id;
};

class Graph {
 public:
  // Gives the graph the next graph id (from 1, unique in the process).
  Graph();

  uint32_t id() const { return id_; }
  // Appends a node; safe against threads queueing on the capturing stream at once.
  void Add(NodeOp op);
  // The nodes so far, in capture order.
  std::vector<GraphNode> Nodes();

 private:
  const uint32_t id_;
  std::mutex mutex_;
  std::vector<GraphNode> nodes_;
};

// An instantiated graph: a copy of the graph's nodes, so the graph may change or be destroyed
// afterwards, as in CUDA. Records of its replays carry the graph's id.
class GraphExec {
 public:
  // Gives the executable graph the next executable graph id (from 1, unique in the process).
  GraphExec(uint32_t graph_id, std::vector<GraphNode> nodes);

  uint32_t graph_id() const { return graph_id_; }
  uint32_t id() const { return id_; }
  const std::vector<GraphNode>& nodes() const { return nodes_; }

  // A new launch: returns its completion latch and sets *previous to the previous launch's (null
  // for the first). CUDA runs one launch of an executable graph at a time, each after the ones
  // launched before it, whichever streams they were launched into.
  std::shared_ptr<EventRecord> NextLaunch(std::shared_ptr<EventRecord>* previous);
  // Held by cudaGraphLaunch from NextLaunch until the launch is queued.
  std::mutex& launch_order() { return launch_order_; }

 private:
  const uint32_t graph_id_;
  const uint32_t id_;
  const std::vector<GraphNode> nodes_;
  std::mutex mutex_;
  std::shared_ptr<EventRecord> last_launch_;
  std::mutex launch_order_;
};

}  // namespace fake_cudart
