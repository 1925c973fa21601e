// What one process's NCCL profiler-plugin packets (NcclPluginBatch) and the
// status of its NCCL_PROFILER_PLUGIN hook (InjectionStatus) add up to: the
// contexts NCCL opened, how many collectives and point-to-point operations it
// reported per communicator and function, and with which algorithm, protocol
// and channel count. Totals, not events: memory follows the communicators and
// the distinct (function, algorithm, protocol, channels), not the trace length.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "reporter/base/trace_forward.h"

namespace vprof::reporter {

// COLL and P2P events of one function in one plugin context.
struct NcclPluginOpCounts {
  uint64_t coll = 0;
  uint64_t p2p = 0;
};

// One plugin context: a communicator as NCCL's init call described it.
struct NcclPluginContext {
  // False when events named the context but no NcclPluginComm described it
  // (its packet was lost): the fields below are then zero.
  bool described = false;
  uint64_t comm_hash = 0;  // NCCL's commHash: the same on every rank of the communicator
  std::string name;        // commName; empty when NCCL gave none
  uint32_t nnodes = 0;
  uint32_t nranks = 0;
  uint32_t rank = 0;
  uint64_t init_ns = 0;
  uint64_t finalize_ns = 0;                       // 0 while the context lived
  std::map<std::string, NcclPluginOpCounts> ops;  // by function, as NCCL names it ("AllReduce")
};

// How NCCL ran collectives: the COLL events' function, algorithm, protocol and
// channel count, as NCCL names them ("AllReduce", "RING", "SIMPLE").
struct NcclAlgorithmUse {
  std::string func;
  std::string algo;
  std::string proto;
  uint32_t channels = 0;
  auto operator<=>(const NcclAlgorithmUse&) const = default;
};

struct NcclPluginRecord {
  // The last InjectionStatus of the NCCL_PROFILER_PLUGIN hook; none when the
  // trace holds none (written by a vprof without the plugin, or cut early).
  // Shared and never changed once read, as GpuRecord::capture.
  std::shared_ptr<const vprof::trace::InjectionStatus> injection;
  uint64_t batches = 0;  // NcclPluginBatch packets
  uint64_t dropped = 0;  // sum of NcclPluginBatch.dropped: events lost to full pools
  uint64_t coll_events = 0;
  uint64_t p2p_events = 0;
  // COLL and P2P events NCCL enqueued while a CUDA graph was being captured:
  // each replay of the graph runs their kernels again, with no event.
  uint64_t graph_captured_events = 0;
  std::map<uint64_t, NcclPluginContext> contexts;   // by vprof's context id
  std::map<NcclAlgorithmUse, uint64_t> algorithms;  // COLL events of each use

  // NCCL called the plugin: the hook says it attached, or plugin packets came.
  bool attached() const;
  // The trace says anything at all about the plugin.
  bool has_status() const { return injection != nullptr || batches > 0; }
};

}  // namespace vprof::reporter
