// How the capture core knows its sources: each source (nccl/, nvtx/,
// nccl_plugin/, audit/, cupti/, and the core's own packets about the process)
// registers its drains and its Footer counts in one ordered table,
// capture/sources.cc, which the TraceWriter walks. The core includes no
// source's header; a source reaches the writer through trace_writer.h, whose
// buffer protocol every drain follows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace vprof {

class TraceWriter;
struct ThreadBuffer;

// When the writer runs a drain. Within a pass, rows run in table order.
enum class DrainPass : uint8_t {
  // Once, as the trace begins, right after the RunHeader: packets into the
  // buffer only (no EnsureRoom, no write), which the writer checks for
  // overflow afterwards.
  kTraceBegin,
  // Every writer tick (drain()), and every flush() before GPU activity.
  kEachTick,
  // Within kEachTick, for each thread buffer, after the thread's
  // ThreadDescriptor: consecutive rows of this pass share one walk of the
  // buffers, so one thread's records of every kind stay together.
  kEachThread,
  // flush() only, after every kEachTick row.
  kEachFlush,
};

// One drain of a source. Every drain runs on the writer thread with the flush
// lock held (lifecycle.cc), never with a packet open, and returns false only
// when the trace cannot be written (the writer's error() says why).
struct SourceDrain {
  // What it writes. A kEachThread drain that fails without saying why is
  // reported as "cannot write <name>".
  const char* name;
  DrainPass pass;
  // Every pass but kEachThread. `final`: the trace ends after this pass.
  bool (*drain)(TraceWriter& writer, bool final) = nullptr;
  // kEachThread: the records of one thread's buffer.
  bool (*drain_thread)(TraceWriter& writer, ThreadBuffer& buffer) = nullptr;
  // A new trace begins in a writer (init, and a forked child's reset): what
  // the drain described to the previous trace is to be described again.
  void (*begin_trace)() = nullptr;
  // The rules it keeps, for whoever moves it: may it allocate (intern() does,
  // so does reading /proc), and is it async-signal-safe (it takes no lock and
  // makes no call a signal handler may not make)?
  bool may_allocate;
  bool signal_safe;
};

// One KindCount of the Footer: what a source recorded and dropped. The
// source adds to it through TraceWriter::Count() while draining.
struct SourceCount {
  const char* kind;  // KindCount.kind
  // Written even when nothing was recorded or dropped; otherwise left out
  // (no CUDA, no NVTX in this process).
  bool always;
};

struct CaptureSources {
  std::span<const SourceDrain> drains;
  // In the Footer's order.
  std::span<const SourceCount* const> counts;
};

}  // namespace vprof
