// A filled CUPTI activity buffer goes into the trace in two steps: reading
// it, the only step that calls into libcupti (its record iterator, its API
// names, kernel names it owns), then encoding it, which writes packets and,
// when the encoder fills, the file. Apart, the reading can be fenced off
// before libcupti's teardown at exit (gpu_capture.cc's reading gate) without
// a slow file system's writes inside the fence.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cupti/cupti_library.h"
#include "cupti/recorded_spans.h"
#include "interpose/core/trace_writer.h"

namespace vprof {

// One buffer as read: its records in order, and for each a name: an
// interned string's id (0: none), kLeftOut (an API record that began outside
// the recorded spans, not written), or kNewName + i for new_names[i], a name
// the writer has not interned yet, copied out of CUPTI's memory.
struct ReadRecords {
  static constexpr uint64_t kLeftOut = ~uint64_t{0};
  static constexpr uint64_t kNewName = uint64_t{1} << 62;
  std::vector<const CUpti_Activity*> records;
  std::vector<uint64_t> names;
  std::vector<std::string> new_names;
};

// Reads data[0, valid_bytes) through cupti. With spans (deep windows), API
// records that began outside them are left out. Writes nothing to w, not
// even a new name's packet. The records point into data: valid until the
// buffer is returned.
ReadRecords ReadActivityBuffer(const CuptiLibrary& cupti, const TraceWriter& w, uint8_t* data,
                               size_t valid_bytes, const RecordedSpans* spans);

// Writes what was read as GpuBatch packets, new names' packets first, in
// several batches when the encoder fills (the first carries `dropped`, the
// records CUPTI dropped), and adds the records written to `count`. Calls
// nothing of CUPTI's. False when the trace cannot be written.
bool EncodeActivityBuffer(TraceWriter& w, const ReadRecords& read, uint64_t dropped,
                          const SourceCount& count);

}  // namespace vprof
