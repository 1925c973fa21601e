// How the capture core knows its sources: each source (nccl/, nvtx/,
// nccl_plugin/, audit/, cupti/, and the core's own packets about the process)
// registers its drains, its Footer counts and its lifecycle hooks in one
// ordered table, interpose/sources.cc, which the TraceWriter and the runtime
// (runtime.cc) walk without naming a source. The core includes no
// source's header; a source reaches the writer through trace_writer.h, whose
// buffer protocol every drain follows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace vprof {

struct Settings;
class TraceWriter;
struct ThreadBuffer;

// When the writer runs a drain. Within a pass, rows run in table order.
enum class DrainPass : uint8_t {
  // Once, as the trace begins, right after the RunHeader: packets into the
  // buffer only (no EnsureRoom, no write), which the writer checks for
  // overflow afterwards.
  kTraceBegin,
  // Every writer tick (Drain()), and every Flush() before GPU activity.
  kEachTick,
  // Within kEachTick, for each thread buffer, after the thread's
  // ThreadDescriptor: consecutive rows of this pass share one walk of the
  // buffers, so one thread's records of every kind stay together.
  kEachThread,
  // Flush() only, after every kEachTick row.
  kEachFlush,
};

// One drain of a source. Every drain runs on the writer thread with the flush
// lock held (runtime.cc), never with a packet open, and returns false only
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
  // The rules it keeps, for whoever moves it: may it allocate (Intern() does,
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

// What a source is handed when recording starts.
struct SourceStart {
  const Settings& settings;
  const std::string& self_path;  // the path libvprof.so was loaded from
};

// When a source's start runs (runtime.cc). Within a stage, rows run in table
// order.
enum class StartStage : uint8_t {
  // Before the writer thread starts, which alone uses what they set up after.
  kBeforeWriter,
  // Once the writer runs: hooks through which records may come at once.
  kAfterWriter,
  // Each time the CUDA driver calls the injection hook (cuInit, once per
  // process as a rule), after initialisation: what needs CUDA initialised.
  kAtCudaInit,
};

// A source's part in the process's life beside its drains. Every hook is
// optional. None runs with the flush lock held: on_tick and before_flush run
// on the writer thread just before it takes the lock, because CUPTI may call
// back into its buffer queue from them.
struct SourceHooks {
  const char* name;
  StartStage stage = StartStage::kBeforeWriter;
  void (*start)(const SourceStart& start) = nullptr;
  // Every writer tick while recording.
  void (*on_tick)(uint64_t now_ns) = nullptr;
  // Before each flush, and once as the trace ends (`final`: also from an exit
  // handler, on the exiting thread).
  void (*before_flush)(bool final) = nullptr;
  // On the writer thread once the trace ended at VPROF_STOP_AFTER_S while the
  // process runs on: stop what would go on costing the program.
  void (*after_capture_window)() = nullptr;
  // In a forked child, which has one thread and copies of every lock, some
  // possibly held by threads that do not exist in it: reset, never wait.
  void (*reset_in_child)() = nullptr;
};

struct CaptureSources {
  std::span<const SourceDrain> drains;
  // In the Footer's order.
  std::span<const SourceCount* const> counts;
  std::span<const SourceHooks> hooks;
};

}  // namespace vprof
