// `vprof export --format perfetto`: the whole run as one trace in Perfetto's
// own protobuf format (perfetto_trace.proto), which Perfetto UI opens far
// larger than JSON and trace_processor reads with SQL. One process track per
// traced process, in rank order, and under it a track per thread (NCCL calls,
// NVTX ranges, CUDA API calls), per GPU stream, per plugin communicator, for
// NVTX start/end ranges, and counters of GPU memory; flows from launches and
// NCCL calls to their kernels. Names, categories and argument names are
// interned, so a kernel's name is written once in the file.
//
// Times are nanoseconds since one second before the earliest process start
// (a packet's timestamp is unsigned, and small numbers are short varints);
// the metadata event's "zero_ns" is that instant on the plan's clock
// (CLOCK_MONOTONIC on one host, CLOCK_REALTIME across hosts), so the Chrome
// export's time t is t + origin_ns - zero_ns here.
#pragma once

#include <ostream>
#include <string_view>

#include "reporter/export/export_filter.h"
#include "reporter/export/export_plan.h"

namespace vprof::reporter {

// `directory` is named in the trace's metadata event. One process's records
// are held until its trace is read, so that each track's slices can be
// written nested (perfetto slices are begin/end pairs on a stack per track).
void WritePerfettoTrace(const ExportPlan& plan, std::string_view directory, std::ostream& out,
                        ExportTally& tally);

}  // namespace vprof::reporter
