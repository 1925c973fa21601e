#include "graph.h"

#include <atomic>
#include <utility>
#include <variant>

#include "activity_hooks.h"
#include "runtime.h"

namespace fake_cudart {
namespace {

// Process-wide, like CUPTI's graph and node ids; 0 means "not in a graph" in records.
std::atomic<uint32_t> g_last_graph_id{0};
std::atomic<uint64_t> g_last_node_id{0};
std::atomic<uint32_t> g_last_exec_id{0};

}  // namespace

Graph::Graph() : id_(g_last_graph_id.fetch_add(1) + 1) {}

void Graph::Add(NodeOp op) {
  const uint64_t node_id = g_last_node_id.fetch_add(1) + 1;
  std::lock_guard lock(mutex_);
  nodes_.push_back({std::move(op), node_id});
}

std::vector<GraphNode> Graph::Nodes() {
  std::lock_guard lock(mutex_);
  return nodes_;
}

GraphExec::GraphExec(uint32_t graph_id, std::vector<GraphNode> nodes)
    : graph_id_(graph_id), id_(g_last_exec_id.fetch_add(1) + 1), nodes_(std::move(nodes)) {}

std::shared_ptr<EventRecord> GraphExec::NextLaunch(std::shared_ptr<EventRecord>* previous) {
  // A latch, not an event's recording: ids 0 name no event.
  auto launch = std::make_shared<EventRecord>(0, 0);
  std::lock_guard lock(mutex_);
  *previous = std::exchange(last_launch_, launch);
  return launch;
}

}  // namespace fake_cudart

extern "C" __attribute__((visibility("default"))) size_t fakeCudartGraphNodes(const void* graph,
                                                                              FakeGraphNode* out,
                                                                              size_t capacity) {
  const auto found = fake_cudart::Runtime::Get().FindGraph(
      reinterpret_cast<cudaGraph_t>(const_cast<void*>(graph)));
  if (!found) return 0;
  const std::vector<fake_cudart::GraphNode> nodes = found->Nodes();
  for (size_t i = 0; i < nodes.size() && i < capacity; ++i) {
    if (const auto* kernel = std::get_if<fake_cudart::KernelOp>(&nodes[i].op)) {
      out[i] = {kFakeGraphKernel, fake_cudart::KernelRecordName(kernel->func, kernel->name)};
    } else {
      out[i] = {std::holds_alternative<fake_cudart::FillOp>(nodes[i].op) ? kFakeGraphFill
                                                                         : kFakeGraphCopy,
                nullptr};
    }
  }
  return nodes.size();
}
