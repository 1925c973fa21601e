// The "candidates" member of the JSON report.
#pragma once

#include "reporter/base/json_writer.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

void WriteCandidatesJson(JsonWriter& json, const Report& report);

}  // namespace vprof::reporter
