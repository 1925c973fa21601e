// The writer's side of the NCCL wrappers: the function names every trace
// begins with, the communicators, and each thread's recorded calls as
// EventBatch packets. Writer thread, flush lock held (trace_writer.h).
#pragma once

#include "interpose/core/capture_source.h"
#include "interpose/core/nccl_record.h"

namespace vprof {

class TraceWriter;
struct ThreadBuffer;

// The Footer's "nccl" KindCount: calls recorded, and calls dropped (a full
// ring, or a thread without a buffer). Always written.
extern const SourceCount kNcclCallCount;

// An InternedString for each row of the NCCL function table
// (NcclFunctionIid), and one for the communicators vprof adopted without
// seeing them created. At trace begin, into the buffer only.
bool PutNcclFunctionNames(TraceWriter& writer);

// A Communicator packet for each communicator registered since the last call.
bool PutNewCommunicators(TraceWriter& writer);
// A new trace: every communicator registered so far is described again, and
// only those registered from now on make the trace worth a file (those of a
// forked child's parent are described in the child's file, but are no
// reason on their own to write it).
void BeginCommunicatorsTrace();

// The thread's recorded calls as EventBatch packets; `on_call` sees each call
// after its NcclEvent is encoded. False when the trace cannot be written.
bool DrainNcclCalls(TraceWriter& writer, ThreadBuffer& buffer,
                    void (*on_call)(const NcclRecord& call));

}  // namespace vprof
