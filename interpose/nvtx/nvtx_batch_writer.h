// Writer side of NVTX capture: a thread's finished ranges as NvtxBatch packets.
#pragma once

#include "interpose/core/capture_source.h"

namespace vprof {

class TraceWriter;
struct ThreadBuffer;

// Writer thread, flush lock held, never in a signal handler (interning range
// names allocates). False when the trace cannot be written.
bool WriteNvtxBatches(TraceWriter& writer, ThreadBuffer& buffer);

// The Footer's "nvtx" KindCount: ranges recorded, and ranges dropped (a full
// ring, or a start/end range lost from the open-range table).
extern const SourceCount kNvtxRangeCount;
// Counts the start/end ranges lost from the open-range table since the last
// call (nvtx_open_ranges.h).
void CountLostOpenRanges(TraceWriter& writer);

}  // namespace vprof
