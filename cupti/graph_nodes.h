// What a CUDA graph runs, read from its node list once, as it is
// instantiated, so that the light default (which records each replay whole,
// CUPTI's GRAPH_TRACE, and none of its nodes) can still say which kernels a
// replay ran: the reporter finds the steps inside graphs from them.
//
// Read on the instantiating thread, inside CUPTI's GRAPHEXEC_CREATED
// callback: a few driver calls per node and one allocation per graph, never
// anything per replay. Queued for the writer thread, which writes them ahead
// of the next activity buffer it reads, so a graph's nodes come before the
// records of its replays.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "interpose/core/trace_writer.h"

namespace vprof {

// The driver functions of graph_driver_functions.def, from the libcuda.so.1
// the process loaded.
struct GraphDriver {
#define VPROF_GRAPH_DRIVER_FN(name, params) CUresult(CUDAAPI* name) params = nullptr;
#include "cupti/graph_driver_functions.def"
#undef VPROF_GRAPH_DRIVER_FN
};

// Fills *driver; false, with *error saying why, when the process has no
// libcuda.so.1 loaded or it lacks a row that is not optional.
bool FindGraphDriver(GraphDriver* driver, std::string* error);

struct GraphKernelCount {
  std::string name;
  uint32_t count = 0;
};

// One graph's node list: kernels by name in the order their names first
// appear in the driver's node list, the rest counted.
struct GraphNodeList {
  uint32_t graph_id = 0;
  uint32_t graph_exec_id = 0;
  std::vector<GraphKernelCount> kernels;
  uint32_t other_nodes = 0;      // past kMaxGraphNodesRead too: their kind is not read
  uint32_t unnamed_kernels = 0;  // no name from the driver
  uint32_t memset_nodes = 0;
  uint32_t memcpy_nodes = 0;
};

// A graph of more nodes is read up to here (2 MiB of node handles).
inline constexpr size_t kMaxGraphNodesRead = size_t{1} << 18;

// Reads graph's nodes through driver. Ids are the caller's (CUPTI's).
GraphNodeList ReadGraphNodes(const GraphDriver& driver, CUgraph graph);

// At most this many lists wait for the writer; a list past it is dropped and
// counted (DroppedGraphNodeLists), never waited for.
inline constexpr size_t kMaxQueuedGraphNodeLists = 1024;

void QueueGraphNodeList(GraphNodeList list);
// A list that could not be read (memory ran out): counted as dropped.
void CountUnqueuedGraphNodeList();
// The lists queued so far, emptying the queue. A lock-free check first: the
// writer calls it once per activity buffer.
std::vector<GraphNodeList> TakeGraphNodeLists();
uint64_t DroppedGraphNodeLists();

// Writes lists as GpuBatch packets holding only graph_nodes, several
// GpuGraphNodes messages per graph when it has many kernel names; names are
// interned first. Writer thread. False when the trace cannot be written.
bool EncodeGraphNodeLists(TraceWriter& w, const std::vector<GraphNodeList>& lists);

}  // namespace vprof
