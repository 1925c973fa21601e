// The JSON of the NCCL profiler plugin (a process's "nccl_plugin" object), the
// coverage check ("coverage") and the requested-vs-actual comparison
// ("consistency"); every key is documented in reporter/README.md.
#pragma once

#include <optional>

#include "reporter/base/json_writer.h"
#include "reporter/ingest/nccl_plugin_record.h"
#include "reporter/model/consistency_report.h"

namespace vprof::reporter {

// Writes the key "nccl_plugin" and its object.
void WriteNcclPluginJson(JsonWriter& json, const NcclPluginRecord& plugin);

// Write the key "coverage" / "consistency" and its object, or null when the
// check was not made.
void WriteCoverageJson(JsonWriter& json, const std::optional<CoverageReport>& coverage);
void WriteConsistencyJson(JsonWriter& json, const std::optional<ConsistencyReport>& consistency);

}  // namespace vprof::reporter
