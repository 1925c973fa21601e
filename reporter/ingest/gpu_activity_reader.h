// Folds one process's GPU packets (GpuBatch, GpuCaptureStatus) into a
// GpuRecord as its trace streams past, and links its NCCL calls to their
// kernels. Holds totals per kernel name and API name (bounded by the names a
// program has) and what the linker and the stream-wait matcher keep in
// flight; never the records themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "reporter/collectives/nccl_function.h"
#include "reporter/gpu/gpu_record.h"
#include "reporter/gpu/graph_node_counts.h"
#include "reporter/gpu/nccl_kernel_linker.h"
#include "reporter/gpu/stream_wait_matcher.h"
#include "reporter/trace/gpu_batch_records.h"
#include "reporter/trace/iid_table.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

// A GpuDevice.uuid (16 bytes) as nvidia-smi shows it:
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase hex of the bytes in
// order. Empty for a value of any other length (unknown).
std::string FormatGpuUuid(std::string_view bytes);

class GpuActivityReader {
 public:
  // The process's interned string of an iid; empty when none was read.
  using NameLookup = std::function<std::string(uint64_t iid)>;

  // `span_sink`: where the linker sends each linked collective's kernel span.
  explicit GpuActivityReader(NameLookup name_of, CollectiveSpanSink span_sink = {})
      : name_of_(std::move(name_of)), linker_(std::move(span_sink)) {}

  // The last status read holds.
  void AddCaptureStatus(const vprof::trace::GpuCaptureStatus& status);
  void AddBatch(const GpuBatchRecords& batch);
  void AddDeviceMemory(const vprof::trace::DeviceMemorySamples& samples);
  void AddDeviceMemorySampling(const vprof::trace::DeviceMemorySampling& sampling);
  void AddNcclCall(const vprof::trace::NcclEvent& event, NcclFunction function) {
    linker_.AddCall(event, function);
  }

  GpuRecord Result() const;

 private:
  struct KernelName {
    ActivityTotals totals;
    bool nccl_class = false;
  };
  struct ApiName {
    bool launches_kernel = false;
    bool ipc = false;
    MemoryCall memory_call = MemoryCall::kNone;  // MemoryCallOf
    ActivityTotals ipc_totals;                   // only for IPC APIs
  };

  KernelName& KernelNamed(uint64_t name_iid);
  ApiName& ApiNamed(uint64_t api_name_iid);

  NameLookup name_of_;
  GpuRecord record_;  // all but the parts below
  IidTable<KernelName> kernels_by_iid_;
  IidTable<ApiName> apis_by_iid_;
  NcclKernelLinker linker_;
  StreamWaitMatcher stream_waits_;
  GraphNodeCounts graph_nodes_;  // what a replay recorded whole ran
};

}  // namespace vprof::reporter
