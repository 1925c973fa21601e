// The seam between the fake CUDA runtime and the fake CUPTI (../fake_cupti/): the fake runtime
// reports the work its streams queue and execute to an "activity sink" that the fake CUPTI
// registers, so a profiler over the stand-ins gets activity records from real (simulated) work.
// Real CUPTI learns the same from the driver; nothing here is an NVIDIA interface.
//
// The sink is a plain C table so that the two libraries share no C++ ABI. Without a sink every
// Report* function is one atomic load.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// Times are CLOCK_MONOTONIC nanoseconds; ids are the fake runtime's.
struct FakeActivitySink {
  // On the thread that queues an operation on a stream (the CUDA API call whose runtime
  // callback id is `cbid`, a CUpti_runtime_api_trace_cbid): returns the operation's
  // correlation id. The caller's external correlation ids are read here.
  uint32_t (*queued)(uint32_t cbid);
  // On the calling thread, for a call that queues nothing (device queries, synchronisations).
  void (*called)(uint32_t cbid);
  // On the stream's worker thread, once the operation has run. An operation that ran as a node
  // of a graph's replay (cudaGraphLaunch) carries the graph's id and its node's id, and the
  // launch's correlation id; graph_id and graph_node_id are 0 outside graphs.
  void (*kernel)(const char* name, uint32_t stream_id, uint32_t correlation_id, uint32_t graph_id,
                 uint64_t graph_node_id, uint64_t start_ns, uint64_t end_ns);
  // A copy within one device: `direction` a cudaMemcpyKind (never cudaMemcpyDefault), and
  // whether the host memory copied from (src) or into (dst) is pinned; false for device memory.
  void (*memcpy)(uint64_t bytes, int direction, bool src_pinned, bool dst_pinned,
                 uint32_t stream_id, uint32_t correlation_id, uint32_t graph_id,
                 uint64_t graph_node_id, uint64_t start_ns, uint64_t end_ns);
  // A copy between two devices (cudaMemcpyPeer*).
  void (*peer_memcpy)(uint64_t bytes, uint32_t src_device, uint32_t dst_device, uint32_t stream_id,
                      uint32_t correlation_id, uint32_t graph_id, uint64_t graph_node_id,
                      uint64_t start_ns, uint64_t end_ns);
  // sync_id names one recording of the event; a wait carries the id of the recording it waits
  // for.
  void (*event_record)(uint32_t event_id, uint64_t sync_id, uint32_t stream_id,
                       uint32_t correlation_id, uint64_t completion_ns);
  void (*stream_wait)(uint32_t event_id, uint64_t sync_id, uint32_t stream_id,
                      uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns);
  // On the calling thread, for cudaMalloc (allocation, `released` false) and cudaFree
  // (`released` true, with the bytes the allocation had) on `device`, at `at_ns`.
  void (*memory)(uint32_t cbid, bool released, uint64_t address, uint64_t bytes, uint32_t device,
                 uint64_t at_ns);
  // On the thread that initialised CUDA, once CUDA_INJECTION64_PATH's library returned: the
  // stand-in's one context (of device 0) now exists, as the real driver creates a context.
  void (*context_created)();
  // On the stream's worker thread, once a graph launch's replay has run, after its nodes were
  // reported: from the first node's start to the last node's end, with the launch's
  // correlation id.
  void (*graph_replay)(uint32_t graph_id, uint32_t stream_id, uint32_t correlation_id,
                       uint64_t start_ns, uint64_t end_ns);
  // On the thread calling cudaGraphInstantiate, once the executable graph exists: the graph's
  // and the executable graph's handles and ids, for CUPTI's GRAPHEXEC_CREATED callback.
  void (*graph_instantiated)(const void* graph, uint32_t graph_id, const void* graph_exec,
                             uint32_t graph_exec_id);
};

// Exported by the fake libcudart.so.13 (the one symbol beyond the CUDA API): the fake CUPTI
// finds it with dlsym and registers its sink, which must live until the process exits.
void fakeCudartSetActivitySink(const FakeActivitySink* sink);

// A graph's node as the fake libcuda's node queries see it: its kind and, for a kernel, its name
// as its kernel records would name it (null for a copy or fill).
enum FakeGraphNodeKind { kFakeGraphKernel, kFakeGraphCopy, kFakeGraphFill };
struct FakeGraphNode {
  enum FakeGraphNodeKind kind;
  const char* kernel_name;
};

// For the fake libcuda's cuGraphGetNodes and node queries: the nodes of `graph` in capture
// order. Fills at most `capacity` of them and returns the graph's node count; 0 for an unknown
// graph.
size_t fakeCudartGraphNodes(const void* graph, struct FakeGraphNode* nodes, size_t capacity);

}  // extern "C"

namespace fake_cudart {

uint32_t ReportQueued(uint32_t cbid);
void ReportCalled(uint32_t cbid);
// name: the kernel's name; null for a stand-in kernel, named by func's symbol.
// graph_id, graph_node_id: 0 outside a graph's replay.
void ReportKernel(const void* func, const char* name, uint32_t stream_id, uint32_t correlation_id,
                  uint32_t graph_id, uint64_t graph_node_id, uint64_t start_ns, uint64_t end_ns);
void ReportMemcpy(uint64_t bytes, int direction, bool src_pinned, bool dst_pinned,
                  uint32_t stream_id, uint32_t correlation_id, uint32_t graph_id,
                  uint64_t graph_node_id, uint64_t start_ns, uint64_t end_ns);
void ReportPeerMemcpy(uint64_t bytes, uint32_t src_device, uint32_t dst_device, uint32_t stream_id,
                      uint32_t correlation_id, uint32_t graph_id, uint64_t graph_node_id,
                      uint64_t start_ns, uint64_t end_ns);
void ReportGraphReplay(uint32_t graph_id, uint32_t stream_id, uint32_t correlation_id,
                       uint64_t start_ns, uint64_t end_ns);
void ReportEventRecord(uint32_t event_id, uint64_t sync_id, uint32_t stream_id,
                       uint32_t correlation_id, uint64_t completion_ns);
void ReportStreamWait(uint32_t event_id, uint64_t sync_id, uint32_t stream_id,
                      uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns);
// `called_ns`: when the call began (its API record spans from then to its report).
void ReportMemory(uint32_t cbid, bool released, uint64_t address, uint64_t bytes, uint32_t device,
                  uint64_t called_ns);
void ReportContextCreated();
void ReportGraphInstantiated(const void* graph, uint32_t graph_id, const void* graph_exec,
                             uint32_t graph_exec_id);
// The name a kernel's records carry: `name`, or func's symbol.
const char* KernelRecordName(const void* func, const char* name);

}  // namespace fake_cudart
