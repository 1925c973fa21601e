// The writer's side of the NCCL wrappers: the function names every trace
// begins with, the communicators, and each thread's recorded calls as
// EventBatch packets. Writer thread, flush lock held (trace_writer.h).
#pragma once

#include "capture_source.h"
#include "nccl_record.h"

namespace vprof {

class TraceWriter;
struct ThreadBuffer;

// The Footer's "nccl" KindCount: calls recorded, and calls dropped (a full
// ring, or a thread without a buffer). Always written.
extern const SourceCount kNcclCallCount;

// An InternedString for each row of the NCCL function table
// (nccl_function_iid), and one for the communicators vprof adopted without
// seeing them created. At trace begin, into the buffer only.
bool put_nccl_function_names(TraceWriter& writer);

// A Communicator packet for each communicator registered since the last call.
bool put_new_communicators(TraceWriter& writer);
// A new trace: every communicator registered so far is described again, and
// only those registered from now on make the trace worth a file (those of a
// forked child's parent are described in the child's file, but are no
// reason on their own to write it).
void begin_communicators_trace();

// The thread's recorded calls as EventBatch packets; `on_call` sees each call
// after its NcclEvent is encoded. False when the trace cannot be written.
bool drain_nccl_calls(TraceWriter& writer, ThreadBuffer& buffer,
                      void (*on_call)(const NcclRecord& call));

}  // namespace vprof
