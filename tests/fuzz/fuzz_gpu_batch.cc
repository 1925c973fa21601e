// One TracePacket's bytes through the GpuBatch wire decoder, and a decoded
// batch through the three readers a trace's GPU records go to (as
// TraceSource::AbsorbGpuBatch sends them).
#include <cstddef>
#include <cstdint>
#include <string>

#include "reporter/ingest/gpu_activity_reader.h"
#include "reporter/ingest/inferred_phase_reader.h"
#include "reporter/steps/step_patterns.h"
#include "reporter/steps/step_tracker.h"
#include "reporter/trace/gpu_batch_records.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vprof::reporter;
  GpuBatchRecords records;
  if (DecodeGpuBatchPacket(data, size, &records) != PacketDecode::kGpuBatch) return 0;
  const auto no_name = [](uint64_t) { return std::string(); };
  GpuActivityReader gpu(no_name);
  StepTracker steps(no_name, DefaultStepMatcher());
  InferredPhaseReader inferred_phases;
  gpu.AddBatch(records);
  steps.AddGpuBatch(records);
  inferred_phases.AddGpuBatch(records);
  const GpuRecord gpu_record = gpu.Result();
  steps.Finish();
  // The kernels' names, as TraceSource hands them over, through the role's kernel rules.
  inferred_phases.Result(gpu_record.kernels_by_name);
  return 0;
}
