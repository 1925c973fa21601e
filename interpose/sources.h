// The capture sources' table (capture_source.h): every drain the TraceWriter
// runs, in order, the Footer's KindCounts and the sources' hooks, which the
// library's entry points hand to the runtime (EnsureInitialized).
#pragma once

#include "interpose/core/capture_source.h"

namespace vprof {

const CaptureSources& RegisteredSources();

}  // namespace vprof
