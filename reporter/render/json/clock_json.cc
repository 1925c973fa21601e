#include "reporter/render/json/clock_json.h"

#include "reporter/consistency/clock_collective_check.h"

namespace vprof::reporter {

void WriteClockCheckJson(JsonWriter& json, const TimeSource& time_source) {
  // The collective estimate is checked, never applied (report.h says why).
  json.Field("applied_offset", time_source.aligned_to_realtime ? "host_clock_samples" : "none");
  json.Field("collective_reference", time_source.collective_reference);
  json.Field("kernel_end_floor_ns", kKernelEndFloorNs);
  json.Objects("processes", time_source.processes, [&](const ProcessClock& process) {
    json.Field("file", process.file);
    json.Field("host_sample_offset_ns", process.host_sample_offset_ns);
    const std::optional<CollectiveClockEstimate>& estimate = process.collectives;
    json.Field("collectives", estimate ? estimate->collectives : 0);
    if (estimate) {
      json.Field("collective_offset_ns", estimate->offset_ns);
      json.Field("collective_offset_at_ns", estimate->at_ns);
      json.Field("collective_span_ns", estimate->span_ns);
      json.Field("collective_drift_ns_per_s", estimate->drift_ns_per_s);
      json.Field("collective_residual_spread_ns", estimate->residual_spread_ns);
      json.Field("collective_error_bound_ns", estimate->error_bound_ns);
    }
  });
}

}  // namespace vprof::reporter
