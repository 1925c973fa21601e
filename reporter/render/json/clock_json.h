// The per-process clock keys of the JSON report's time_source object.
#pragma once

#include "reporter/base/json_writer.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// Writes "applied_offset", "collective_reference", "kernel_end_floor_ns" and
// "processes" (one object per file) into the open time_source object.
void WriteClockCheckJson(JsonWriter& json, const TimeSource& time_source);

}  // namespace vprof::reporter
