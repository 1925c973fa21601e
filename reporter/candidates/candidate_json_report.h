// The "candidates" member of the JSON report.
#pragma once

#include "reporter/json_writer.h"
#include "reporter/report.h"

namespace vprof::reporter {

void WriteCandidatesJson(JsonWriter& json, const Report& report);

}  // namespace vprof::reporter
