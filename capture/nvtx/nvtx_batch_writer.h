// Writer side of NVTX capture: a thread's finished ranges as NvtxBatch packets.
#pragma once

namespace vprof {

class TraceWriter;
struct ThreadBuffer;

// Writer thread, flush lock held, never in a signal handler (interning range
// names allocates). False when the trace cannot be written.
bool write_nvtx_batches(TraceWriter& writer, ThreadBuffer& buffer);

}  // namespace vprof
