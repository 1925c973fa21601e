// A CUDA graph's node list read through a GraphDriver whose functions are the
// test's (a graph held in memory: kernels by name, copies, fills, an event
// record, a kernel whose name the driver cannot give), then encoded into a
// trace file and read back with libprotobuf.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "../interpose/trace_in_temp_dir.h"
#include "cupti/graph_nodes.h"

namespace {

// The test's graph: one entry per node; a kernel's name, "" for a kernel whose
// name the driver does not know.
struct TestNode {
  CUgraphNodeType type;
  const char* name;
};
std::vector<TestNode> g_nodes;

TestNode Kernel(const char* name) { return {CU_GRAPH_NODE_TYPE_KERNEL, name}; }
constexpr TestNode kCopy{CU_GRAPH_NODE_TYPE_MEMCPY, nullptr};
constexpr TestNode kFill{CU_GRAPH_NODE_TYPE_MEMSET, nullptr};
constexpr TestNode kEventRecord{CU_GRAPH_NODE_TYPE_EVENT_RECORD, nullptr};

CUgraphNode Handle(size_t i) { return reinterpret_cast<CUgraphNode>(i + 1); }
size_t Index(const void* handle) { return reinterpret_cast<size_t>(handle) - 1; }

CUresult CUDAAPI get_nodes(CUgraph, CUgraphNode* nodes, size_t* count) {
  if (nodes == nullptr) {
    *count = g_nodes.size();
    return CUDA_SUCCESS;
  }
  *count = std::min(*count, g_nodes.size());
  for (size_t i = 0; i < *count; ++i) nodes[i] = Handle(i);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI node_type(CUgraphNode node, CUgraphNodeType* type) {
  *type = g_nodes[Index(node)].type;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI kernel_params(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS* params) {
  *params = CUDA_KERNEL_NODE_PARAMS{};
  params->func = reinterpret_cast<CUfunction>(node);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI func_name(const char** name, CUfunction func) {
  const char* known = g_nodes[Index(func)].name;
  if (*known == '\0') return CUDA_ERROR_NOT_FOUND;
  *name = known;
  return CUDA_SUCCESS;
}

vprof::GraphDriver TestDriver(bool names) {
  vprof::GraphDriver driver;
  driver.cuGraphGetNodes = get_nodes;
  driver.cuGraphNodeGetType = node_type;
  driver.cuGraphKernelNodeGetParams_v2 = kernel_params;
  if (names) driver.cuFuncGetName = func_name;
  return driver;
}

CUgraph TestGraph() { return reinterpret_cast<CUgraph>(1); }

struct GraphTrace : TraceInTempDir {
  GraphTrace() : TraceInTempDir("graphhost", 78) {}
};

}  // namespace

TEST_CASE("a graph's node list counts kernels by name in first-seen order, and the rest") {
  g_nodes = {Kernel("gemm"),
             kCopy,
             Kernel("softmax"),
             kFill,
             Kernel("gemm"),
             Kernel(""),
             kEventRecord,
             Kernel("multi_tensor_apply_kernel"),
             kCopy,
             Kernel("gemm"),
             kFill,
             kFill};
  const vprof::GraphNodeList list = vprof::ReadGraphNodes(TestDriver(true), TestGraph());
  REQUIRE(list.kernels.size() == 3);
  CHECK((list.kernels[0].name == "gemm" && list.kernels[0].count == 3));
  CHECK((list.kernels[1].name == "softmax" && list.kernels[1].count == 1));
  CHECK((list.kernels[2].name == "multi_tensor_apply_kernel" && list.kernels[2].count == 1));
  CHECK(list.memcpy_nodes == 2);
  CHECK(list.memset_nodes == 3);
  CHECK(list.other_nodes == 1);
  CHECK(list.unnamed_kernels == 1);

  // A driver without cuFuncGetName (older than CUDA 12.3): every kernel unnamed, none lost.
  const vprof::GraphNodeList unnamed = vprof::ReadGraphNodes(TestDriver(false), TestGraph());
  CHECK(unnamed.kernels.empty());
  CHECK(unnamed.unnamed_kernels == 6);
  CHECK((unnamed.memcpy_nodes == 2 && unnamed.memset_nodes == 3 && unnamed.other_nodes == 1));
}

TEST_CASE_METHOD(GraphTrace, "node lists are written in messages of at most 32 names") {
  // Graph 5 (executable graph 9): 70 distinct kernels, node i named k<i>, i + 1 nodes each.
  vprof::GraphNodeList many;
  many.graph_id = 5;
  many.graph_exec_id = 9;
  many.other_nodes = 4;
  many.memset_nodes = 7;
  many.memcpy_nodes = 8;
  for (uint32_t i = 0; i < 70; ++i) many.kernels.push_back({"k" + std::to_string(i), i + 1});
  vprof::GraphNodeList empty;  // graph 6: no kernel, still said
  empty.graph_id = 6;
  empty.unnamed_kernels = 2;
  REQUIRE(vprof::EncodeGraphNodeLists(writer, {many, empty}));

  std::map<uint64_t, std::string> names;
  std::map<uint32_t, std::map<std::string, uint32_t>> kernels;  // by graph id
  std::map<uint32_t, uint32_t> messages, others, unnamed, exec_ids, fills, copies;
  for (const auto& p : finished_packets()) {
    if (p.has_interned_string()) names[p.interned_string().iid()] = p.interned_string().str();
    if (!p.has_gpu_batch()) continue;
    for (const auto& graph : p.gpu_batch().graph_nodes()) {
      ++messages[graph.graph_id()];
      CHECK(graph.kernel_size() <= 32);
      exec_ids[graph.graph_id()] = graph.graph_exec_id();
      others[graph.graph_id()] += graph.other_nodes();
      fills[graph.graph_id()] += graph.memset_nodes();
      copies[graph.graph_id()] += graph.memcpy_nodes();
      unnamed[graph.graph_id()] += graph.unnamed_kernels();
      for (const auto& kernel : graph.kernel()) {
        REQUIRE(names.count(kernel.name_iid()) == 1);  // names precede their use
        kernels[graph.graph_id()][names[kernel.name_iid()]] += kernel.count();
      }
    }
  }
  CHECK(messages[5] == 3);  // 32 + 32 + 6
  CHECK(messages[6] == 1);
  CHECK(exec_ids[5] == 9);
  CHECK(others[5] == 4);  // said once, not once per message
  CHECK((fills[5] == 7 && copies[5] == 8));
  CHECK(unnamed[6] == 2);
  REQUIRE(kernels[5].size() == 70);
  for (uint32_t i = 0; i < 70; ++i) CHECK(kernels[5]["k" + std::to_string(i)] == i + 1);
  CHECK(kernels[6].empty());
}

TEST_CASE("the queue holds at most its bound; a list past it is dropped and counted") {
  CHECK(vprof::TakeGraphNodeLists().empty());
  for (size_t i = 0; i < vprof::kMaxQueuedGraphNodeLists + 3; ++i) {
    vprof::GraphNodeList list;
    list.graph_id = static_cast<uint32_t>(i + 1);
    vprof::QueueGraphNodeList(std::move(list));
  }
  const std::vector<vprof::GraphNodeList> taken = vprof::TakeGraphNodeLists();
  REQUIRE(taken.size() == vprof::kMaxQueuedGraphNodeLists);
  CHECK(taken.front().graph_id == 1);
  CHECK(taken.back().graph_id == vprof::kMaxQueuedGraphNodeLists);
  CHECK(vprof::DroppedGraphNodeLists() == 3);
  CHECK(vprof::DroppedGraphNodeLists() == 0);  // read once
  CHECK(vprof::TakeGraphNodeLists().empty());
}
