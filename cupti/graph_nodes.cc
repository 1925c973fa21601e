#include "cupti/graph_nodes.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "interpose/core/load_order.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

// The table's parameter lists must be the header's.
#define VPROF_GRAPH_DRIVER_FN(name, params)                                   \
  static_assert(std::is_same_v<decltype(&::name), CUresult(CUDAAPI*) params>, \
                #name " in graph_driver_functions.def differs from cuda.h");
#include "cupti/graph_driver_functions.def"
#undef VPROF_GRAPH_DRIVER_FN

// Held only to move lists in and out: never across a driver call or a write.
LoadFirst<std::mutex> g_queue_lock VPROF_LOAD_FIRST;
LoadFirst<std::vector<GraphNodeList>> g_queue VPROF_LOAD_FIRST;
std::atomic<size_t> g_queued{0};  // g_queue's size, read without the lock
std::atomic<uint64_t> g_dropped{0};

// A GpuGraphNodes message holds at most this many kernel names, so that one
// message stays small against the encoder's room.
constexpr size_t kKernelsPerMessage = 32;
// Each kernel entry: its tag and length, a name id and a count.
constexpr size_t kMaxMessageBytes = kKernelsPerMessage * 20 + 48;

const char* KernelName(const GraphDriver& driver, CUgraphNode node) {
  CUDA_KERNEL_NODE_PARAMS params{};
  if (driver.cuGraphKernelNodeGetParams_v2(node, &params) != CUDA_SUCCESS) return nullptr;
  const char* name = nullptr;
  if (params.func != nullptr) {
    if (driver.cuFuncGetName && driver.cuFuncGetName(&name, params.func) == CUDA_SUCCESS) {
      return name;
    }
  } else if (params.kern != nullptr && driver.cuKernelGetName &&
             driver.cuKernelGetName(&name, params.kern) == CUDA_SUCCESS) {
    return name;
  }
  return nullptr;
}

}  // namespace

bool FindGraphDriver(GraphDriver* driver, std::string* error) {
  // RTLD_NOLOAD: a process that has not loaded CUDA gets no CUDA from vprof.
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) {
    *error = "no libcuda.so.1 is loaded in this process";
    return false;
  }
  GraphDriver found;
  std::string missing;
#define VPROF_GRAPH_DRIVER_OPTIONAL_FN(name, params) \
  found.name = reinterpret_cast<CUresult(CUDAAPI*) params>(dlsym(h, #name));
#define VPROF_GRAPH_DRIVER_FN(name, params)                                  \
  found.name = reinterpret_cast<CUresult(CUDAAPI*) params>(dlsym(h, #name)); \
  if (!found.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
#include "cupti/graph_driver_functions.def"
#undef VPROF_GRAPH_DRIVER_FN
  dlclose(h);  // drops only the reference RTLD_NOLOAD took
  if (!missing.empty()) {
    *error = "the loaded libcuda.so.1 lacks " + missing;
    return false;
  }
  *driver = found;
  return true;
}

GraphNodeList ReadGraphNodes(const GraphDriver& driver, CUgraph graph) {
  GraphNodeList list;
  size_t count = 0;
  if (driver.cuGraphGetNodes(graph, nullptr, &count) != CUDA_SUCCESS || count == 0) return list;
  size_t read = std::min(count, kMaxGraphNodesRead);
  std::vector<CUgraphNode> nodes(read);
  if (driver.cuGraphGetNodes(graph, nodes.data(), &read) != CUDA_SUCCESS) return list;
  nodes.resize(std::min(read, nodes.size()));
  list.other_nodes = static_cast<uint32_t>(count - nodes.size());
  std::unordered_map<std::string_view, size_t> index;  // views of the driver's names
  for (CUgraphNode node : nodes) {
    CUgraphNodeType type{};
    if (driver.cuGraphNodeGetType(node, &type) != CUDA_SUCCESS) type = CU_GRAPH_NODE_TYPE_EMPTY;
    if (type != CU_GRAPH_NODE_TYPE_KERNEL) {
      ++(type == CU_GRAPH_NODE_TYPE_MEMSET   ? list.memset_nodes
         : type == CU_GRAPH_NODE_TYPE_MEMCPY ? list.memcpy_nodes
                                             : list.other_nodes);
      continue;
    }
    const char* name = KernelName(driver, node);
    if (name == nullptr || *name == '\0') {
      ++list.unnamed_kernels;
      continue;
    }
    const auto [it, added] = index.try_emplace(name, list.kernels.size());
    if (added) list.kernels.push_back({name, 0});
    ++list.kernels[it->second].count;
  }
  return list;
}

void QueueGraphNodeList(GraphNodeList list) {
  std::lock_guard<std::mutex> lock(*g_queue_lock);
  if (g_queue->size() >= kMaxQueuedGraphNodeLists) {
    g_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  g_queue->push_back(std::move(list));
  g_queued.store(g_queue->size(), std::memory_order_release);
}

std::vector<GraphNodeList> TakeGraphNodeLists() {
  if (g_queued.load(std::memory_order_acquire) == 0) return {};
  std::lock_guard<std::mutex> lock(*g_queue_lock);
  g_queued.store(0, std::memory_order_release);
  return std::exchange(*g_queue, {});
}

void CountUnqueuedGraphNodeList() { g_dropped.fetch_add(1, std::memory_order_relaxed); }

uint64_t DroppedGraphNodeLists() { return g_dropped.exchange(0, std::memory_order_relaxed); }

bool EncodeGraphNodeLists(TraceWriter& w, const std::vector<GraphNodeList>& lists) {
  namespace f = schema::GpuGraphNodes;
  namespace k = schema::GraphKernelNodes;
  // Names' packets precede the batch: Intern() writes one.
  std::vector<std::vector<uint64_t>> iids(lists.size());
  for (size_t i = 0; i < lists.size(); ++i) {
    for (const GraphKernelCount& kernel : lists[i].kernels)
      iids[i].push_back(w.Intern(kernel.name));
  }
  ProtoEncoder& enc = w.encoder();
  for (size_t i = 0; i < lists.size(); ++i) {
    const GraphNodeList& list = lists[i];
    size_t next = 0;
    do {  // one message at least, for a graph of no kernel
      if (!w.EnsureRoom(kMaxMessageBytes + 64)) return false;
      const TraceWriter::PacketTokens t = w.BeginPacket(schema::TracePacket::kGpuBatch);
      const size_t m = enc.BeginNested(schema::GpuBatch::kGraphNodes);
      enc.AddVarint(f::kGraphId, list.graph_id);
      enc.AddVarint(f::kGraphExecId, list.graph_exec_id);
      if (next == 0) {
        if (list.other_nodes) enc.AddVarint(f::kOtherNodes, list.other_nodes);
        if (list.unnamed_kernels) enc.AddVarint(f::kUnnamedKernels, list.unnamed_kernels);
        if (list.memset_nodes) enc.AddVarint(f::kMemsetNodes, list.memset_nodes);
        if (list.memcpy_nodes) enc.AddVarint(f::kMemcpyNodes, list.memcpy_nodes);
      }
      const size_t end = std::min(list.kernels.size(), next + kKernelsPerMessage);
      for (; next < end; ++next) {
        const size_t n = enc.BeginNested(f::kKernel);
        enc.AddVarint(k::kNameIid, iids[i][next]);
        enc.AddVarint(k::kCount, list.kernels[next].count);
        enc.EndNested(n);
      }
      enc.EndNested(m);
      w.EndPacket(t);
    } while (next < list.kernels.size());
  }
  return true;
}

}  // namespace vprof
