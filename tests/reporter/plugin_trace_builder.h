// One traced process as a capture side with NCCL's profiler plugin writes it:
// a TraceFileBuilder plus the RunHeader's environment, InjectionStatus and
// NcclPluginBatch packets, wrapper calls in bulk, and GPU batches of kernels
// (graph-launched or not) and API calls, for the coverage and consistency
// tests.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "trace_file_builder.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter::testing {

class PluginTraceBuilder {
 public:
  PluginTraceBuilder(std::string host, uint32_t pid, std::optional<int32_t> rank);

  TraceFileBuilder& trace() { return trace_; }

  // A variable of the RunHeader's environment.
  void SetEnv(std::string name, std::string value) { env_[std::move(name)] = std::move(value); }

  // The NCCL_PROFILER_PLUGIN hook's status.
  void AddInjection(bool attached, uint32_t version, std::string detail = "",
                    std::string found = "", bool claimed = true);

  // A plugin context (NCCL's init of a communicator), in a batch of its own.
  void AddPluginComm(uint64_t context_id, uint64_t comm_hash, std::string_view name,
                     uint32_t nranks, uint32_t rank);
  // `n` COLL events of one kind in one batch, which reports `dropped` lost events.
  void AddPluginColls(uint64_t context_id, std::string_view func, std::string_view algo,
                      std::string_view proto, uint32_t channels, uint64_t n,
                      bool graph_captured = false, uint64_t dropped = 0);
  void AddPluginP2ps(uint64_t context_id, std::string_view func, uint64_t n);

  // A Communicator packet, then `n` calls of `function` (seq first_seq on) in
  // one EventBatch.
  void AddCommunicator(uint64_t comm_id, uint32_t nranks, uint32_t rank);
  void AddWrapperCalls(std::string_view function, uint64_t comm_id, uint32_t comm_size,
                       uint32_t comm_rank, uint64_t first_seq, uint64_t n);

  // `n` kernels named `name` of `duration_ns` each in one GpuBatch; a
  // non-zero graph_id marks them as launched by a CUDA graph.
  void AddKernels(std::string_view name, uint64_t n, uint64_t duration_ns, uint32_t graph_id = 0);
  // `n` runtime API records of `name`, `duration_ns` each, in one GpuBatch.
  void AddApiCalls(std::string_view name, uint64_t n, uint64_t duration_ns);

  // A Footer (reporting `dropped` wrapper events, and the drops of other
  // kinds: "cupti", "nccl_plugin"), then the file, its RunHeader carrying the
  // environment.
  void WriteTo(const std::string& path, uint64_t dropped = 0,
               const std::map<std::string, uint64_t>& other_dropped = {});

 private:
  void AddPluginBatch(vprof::trace::NcclPluginBatch batch);

  TraceFileBuilder trace_;
  std::map<std::string, std::string> env_;
  uint64_t next_event_id_ = 1;
};

}  // namespace vprof::reporter::testing
