// A rank's device memory over its measured steps, from each step's
// StepMemory: what the text report prints per rank.
#pragma once

#include <cstdint>
#include <optional>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

struct RankMemorySummary {
  int64_t peak_bytes = 0;
  uint32_t peak_step = 0;  // the first step with that peak
  int64_t low_bytes = 0;
  // Per measured step, the mean.
  double allocations = 0;
  double allocated_bytes = 0;
  double releases = 0;
  int64_t api_ns = 0;
};

// None when its steps have no memory figures (the capture recorded none).
std::optional<RankMemorySummary> SummarizeMemory(const RankStepsReport& rank);

}  // namespace vprof::reporter
