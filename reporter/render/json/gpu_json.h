// A process's GPU activity as the "gpu" object of its JSON entry; every key
// is documented in reporter/README.md.
#pragma once

#include "reporter/base/json_writer.h"
#include "reporter/gpu/gpu_report.h"

namespace vprof::reporter {

// Writes the key "gpu" and its object.
void WriteGpuJson(JsonWriter& json, const GpuReport& gpu);

}  // namespace vprof::reporter
