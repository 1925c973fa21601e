// A GpuBatch packet as its readers (GpuActivityReader, StepTracker,
// InferredPhaseReader) use it: the many-per-batch kinds as flat rows decoded
// straight from the wire, the rest as a protobuf message.
//
// Why not protobuf for all of it: GPU records are nine in ten of a trace's
// events, and the generated parser allocated a message per record on the
// arena and tested a has-bit per field; it was a quarter of a report's
// instructions. DecodeGpuBatch reads the same wire format (field numbers from
// vprof_trace_fields.h, made from schema/vprof_trace.proto) into vectors
// reused from batch to batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vprof_trace.pb.h"

namespace vprof::reporter {

// The fields of GpuKernel the readers use.
struct KernelRow {
  uint64_t name_iid = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint32_t stream = 0;
  uint32_t correlation_id = 0;
  uint32_t graph_id = 0;
};

struct ApiRow {
  uint64_t name_iid = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint32_t tid = 0;
  uint32_t correlation_id = 0;
};

// A GpuMemcpy or a GpuMemset.
struct CopyRow {
  uint64_t bytes = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint32_t stream = 0;
  uint32_t correlation_id = 0;
  uint32_t graph_id = 0;
  // Memcpy only: CUpti_ActivityMemcpyKind, the CUpti_ActivityMemoryKind of each side, and
  // MEMCPY2's devices when given.
  uint32_t copy_kind = 0;
  uint32_t src_kind = 0;
  uint32_t dst_kind = 0;
  uint32_t src_device = 0;
  uint32_t dst_device = 0;
  bool has_src_device = false;
  bool has_dst_device = false;
};

// A GpuGraphReplay: one CUDA-graph replay recorded whole.
struct GraphReplayRow {
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint32_t stream = 0;
  uint32_t correlation_id = 0;
  uint32_t graph_id = 0;

  // CUPTI could not time it: it gave 0 for both times, and no start is written.
  bool timed() const { return start_ns != 0; }
};

struct ExternalRow {
  uint64_t external_id = 0;
  uint32_t correlation_id = 0;
};

struct GpuBatchRecords {
  std::vector<KernelRow> kernels;
  std::vector<ApiRow> apis;
  std::vector<CopyRow> memcpys;
  std::vector<CopyRow> memsets;
  std::vector<ExternalRow> externals;
  std::vector<GraphReplayRow> graph_replays;
  uint64_t dropped = 0;
  // Syncs, event records, CUPTI overhead, devices, memory operations and
  // graphs' node lists: a few per batch, parsed by protobuf. Only those
  // fields of it are set.
  vprof::trace::GpuBatch others;
};

// Decodes the bytes of one GpuBatch message into *records, replacing what it
// held (its vectors keep their capacity). As protobuf does: a field's last
// value wins, and fields this vprof does not know, or that come with another
// wire type than the schema's, are skipped. False when the bytes are not a
// GpuBatch: a varint or a length that runs past the end, a group or a
// reserved wire type, or `others` failing to parse.
bool DecodeGpuBatch(const void* data, size_t size, GpuBatchRecords* records);

enum class PacketDecode : uint8_t {
  kGpuBatch,  // the packet holds a GpuBatch, now in *records
  kOther,     // another kind of packet (or none): parse it as a TracePacket
  kCorrupt,   // the bytes are not a TracePacket
};

// Decodes the GpuBatch of the TracePacket in [data, data + size), if that is
// what it holds, by protobuf's rules for a oneof: the last member on the
// wire is the one set, and repeats of one member merge.
PacketDecode DecodeGpuBatchPacket(const void* data, size_t size, GpuBatchRecords* records);

}  // namespace vprof::reporter
