// A GpuBatch message as the readers get it from a trace file: serialized,
// then decoded by DecodeGpuBatch.
#pragma once

#include <stdexcept>
#include <string>

#include "reporter/trace/gpu_batch_records.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter::testing {

inline GpuBatchRecords RecordsOf(const vprof::trace::GpuBatch& batch) {
  const std::string bytes = batch.SerializeAsString();
  GpuBatchRecords records;
  if (!DecodeGpuBatch(bytes.data(), bytes.size(), &records)) {
    throw std::runtime_error("DecodeGpuBatch refused a serialized GpuBatch");
  }
  return records;
}

}  // namespace vprof::reporter::testing
