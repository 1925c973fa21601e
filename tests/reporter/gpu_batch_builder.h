// GPU packets for a TraceFileBuilder, as the capture side writes them: a
// GpuBatch assembled record by record (names interned before the batch that
// uses them) and GpuCaptureStatus packets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace_file_builder.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter::testing {

class GpuBatchBuilder {
 public:
  explicit GpuBatchBuilder(TraceFileBuilder& trace) : trace_(trace) {}

  GpuBatchBuilder& Kernel(std::string_view name, uint64_t duration_ns, uint32_t correlation_id = 0);
  GpuBatchBuilder& Memcpy(uint64_t bytes, uint64_t duration_ns);
  GpuBatchBuilder& Memset(uint64_t bytes, uint64_t duration_ns);
  // A CUDA-graph replay recorded whole.
  GpuBatchBuilder& GraphReplay(uint32_t graph_id, uint64_t duration_ns);
  // A graph's node list (GpuGraphNodes): its kernel nodes by name, those without one, its fill
  // and copy nodes.
  GpuBatchBuilder& GraphNodes(uint32_t graph_id, uint32_t graph_exec_id,
                              const std::vector<std::pair<std::string_view, uint32_t>>& kernels,
                              uint32_t unnamed_kernels = 0, uint32_t memsets = 0,
                              uint32_t memcpys = 0);
  GpuBatchBuilder& Sync(uint32_t type, uint64_t duration_ns, uint32_t stream = 0,
                        uint64_t event_sync_id = 0);
  GpuBatchBuilder& EventRecord(uint32_t stream, uint64_t event_sync_id, uint32_t cuda_event = 1);
  GpuBatchBuilder& Api(std::string_view name, uint32_t correlation_id);
  GpuBatchBuilder& External(uint64_t call_id, uint32_t correlation_id);
  GpuBatchBuilder& Overhead(uint64_t duration_ns);
  GpuBatchBuilder& Dropped(uint64_t dropped);

  // Adds the batch to the trace as one packet.
  void Write();

 private:
  TraceFileBuilder& trace_;
  vprof::trace::GpuBatch batch_;
};

void AddGpuCaptureStatus(TraceFileBuilder& trace, vprof::trace::GpuCaptureState state,
                         std::string detail = "", std::string cuda_injection_found = "");

}  // namespace vprof::reporter::testing
