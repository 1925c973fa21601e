// What GPU capture records, from VPROF_CUPTI_KINDS as parsed (gpu_kinds.h):
// the CUPTI activity kinds to enable and which CUDA API calls get records.
//
// The light default records what the report's analyses read and nothing else.
// PyTorch makes ~17 runtime and driver calls per kernel it launches, and a
// record of each costs the program host time on the launching thread, so the
// light plan keeps API records only for the calls the analyses use
// (api_selection.h) instead of the whole RUNTIME and DRIVER kinds.
#pragma once

#include <cupti.h>

#include <string>
#include <vector>

#include "common/gpu_kinds.h"

namespace vprof {

struct ActivityKind {
  CUpti_ActivityKind kind;
  const char* name;  // CUPTI's name without CUPTI_ACTIVITY_KIND_
};

struct CapturePlan {
  std::vector<ActivityKind> kinds;  // in the order they are enabled
  ApiRecords api_records = ApiRecords::kNone;
  std::string mode;  // "light", "all", or the list as given (spaces trimmed)
};

// The CUPTI kinds of the kinds asked for, in gpu_kinds.def's order.
CapturePlan PlanCapture(const GpuKinds& kinds);

// Drops GRAPH_TRACE from a plan, so that a graph's nodes get kernel, copy and
// memset records of their own: what deep windows record.
void RecordGraphNodes(CapturePlan* plan);
// Whether a plan records each graph replay whole (holds GRAPH_TRACE).
bool RecordsGraphsWhole(const CapturePlan& plan);
// Whether a kind records API calls: RUNTIME and DRIVER.
bool RecordsApiCalls(CUpti_ActivityKind kind);

// Adds the RUNTIME and DRIVER kinds (every API call recorded) to a plan that
// lacks them, for a libcupti that cannot record selected APIs.
void RecordEveryApi(CapturePlan* plan);

}  // namespace vprof
