// The capture sources' table (capture_source.h): every drain the TraceWriter
// runs, in order, and the Footer's KindCounts.
#pragma once

#include "capture/core/capture_source.h"

namespace vprof {

const CaptureSources& RegisteredSources();

}  // namespace vprof
