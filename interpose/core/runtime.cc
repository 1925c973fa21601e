// The runtime (runtime.h): initialisation, the writer thread, and the ends of
// a process: exit, the capture window's end, fork. It walks the sources' table
// it was handed (capture_source.h) and names no source.
//
// Signals: vprof installs no handler. A handler is something the program can
// see (Python then keeps its own SIGINT handler away, and KeyboardInterrupt
// with it), so a process that a signal kills ends its trace at its last flush
// instead: every write leaves a Footer that the next write replaces
// (trace_writer.h).
//
// Locks: the flush lock (g_flushing) is the only lock on the write path. It is
// a spin flag rather than a mutex so that an exit handler can try it with a
// timeout, and so a forked child can simply reset it. It is never held across
// a call into the host program or a library other than libc, except libcupti
// from the GPU activity drain (reading filled buffers, and one late request
// for hardware timestamps; gpu_capture.h), which takes no lock of vprof's.
#include "interpose/core/runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>  // pthread_sigmask
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>

#include "common/settings.h"
#include "interpose/core/clock.h"
#include "interpose/core/loader_calls.h"
#include "interpose/core/log.h"
#include "interpose/core/run_info.h"
#include "interpose/core/thread_buffers.h"
#include "interpose/core/trace_writer.h"

namespace vprof {

std::atomic<RunState> g_run_state{RunState::kUninitialised};

namespace {

// All created once by Initialise() and never destroyed (see log.h).
const CaptureSources* g_sources = nullptr;
Settings* g_settings = nullptr;
std::string* g_self_path = nullptr;  // what SourceStart names
RunInfo* g_run = nullptr;
TraceWriter* g_writer = nullptr;
uint64_t g_window_origin_ns = 0;

std::atomic<bool> g_flushing{false};

// Each exit handler bounds its own writes of the trace, and the writer
// thread's while the handler waits for it: none is begun kExitWritesNs after
// the handler began (trace_writer.h, EndWritesBy), so that a file system
// that stops answering does not hold the program's exit; a healthy one writes
// the exit's records in milliseconds. FlushTraceAtExit lifts its bound when
// its flush ends: the program's own exit work that follows is not vprof's to
// bound. A handler waits for the flush lock kExitLastWritesNs longer, for the
// writer thread's write under way at the deadline; then the holder spends one
// more write on the Footer (FailWriting). So a handler's share of the exit is
// about 10 s and two writes. Once a handler has waited in vain (a write that
// does not return, or one slower than 2 s), later ones do not wait again.
constexpr uint64_t kExitWritesNs = 10000000000ull;
constexpr uint64_t kExitLastWritesNs = 2000000000ull;
std::atomic<bool> g_exit_wait_failed{false};

void SleepNs(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

bool LockFlush(uint64_t timeout_ns) {
  return PollUntil(NowNs() + timeout_ns, 50000,
                   [] { return !g_flushing.exchange(true, std::memory_order_acquire); });
}
void UnlockFlush() { g_flushing.store(false, std::memory_order_release); }

// An exit handler's way to the flush lock, within its bound (above).
bool LockFlushAtExit() {
  if (g_exit_wait_failed.load()) return LockFlush(0);
  g_writer->EndWritesBy(NowNs() + kExitWritesNs);
  if (LockFlush(kExitWritesNs + kExitLastWritesNs)) return true;
  g_exit_wait_failed.store(true);
  return false;
}

void Disable(const char* why) {
  RunState prev = g_run_state.exchange(RunState::kDisabled);
  if (prev != RunState::kDisabled) {
    LogWarn("{}; profiling is off for this process, which runs on unaffected", why);
  }
}

// Each source's hooks of one kind, in the table's order (capture_source.h).
template <typename Call>
void ForEachHook(Call&& call) {
  for (const SourceHooks& hooks : g_sources->hooks) call(hooks);
}

void BeforeFlush(bool final) {
  ForEachHook([&](const SourceHooks& h) {
    if (h.before_flush) h.before_flush(final);
  });
}

// Flush lock held: a write failed, and vprof turns off with one warning.
// After a stall at an exit handler's bound, the holder (that handler, or the
// writer thread it bounded) then spends one more write on the Footer that
// says so; if the handler stops waiting first, the warning has been said.
void FailWriting() {
  Disable(g_writer->error());
  if (g_writer->stalled()) g_writer->EndStalled();
}

// The writer thread at the capture window's end, or an exit handler.
void EndTrace(EndReason reason) {
  BeforeFlush(true);
  const bool locked = reason == EndReason::kExit ? LockFlushAtExit() : LockFlush(2000000000ull);
  if (!locked) return;  // the writer is stuck: leave what was flushed
  if (!g_writer->Finish(reason)) FailWriting();
  UnlockFlush();
}

void* WriterMain(void*) {
  const uint64_t flush_ns = uint64_t{g_settings->flush_interval_ms} * 1000000ull;
  const uint64_t tick_ns = flush_ns < 10000000ull ? flush_ns : 10000000ull;
  const uint64_t start_ns =
      g_window_origin_ns + static_cast<uint64_t>(g_settings->start_after_s * 1e9);
  const uint64_t stop_ns =
      g_settings->stop_after_s > 0
          ? g_window_origin_ns + static_cast<uint64_t>(g_settings->stop_after_s * 1e9)
          : 0;
  uint64_t next_flush = NowNs() + flush_ns;
  for (;;) {
    SleepNs(tick_ns);
    uint64_t now = NowNs();
    RunState state = g_run_state.load();
    if (state == RunState::kWaiting && now >= start_ns) {
      RunState expected = RunState::kWaiting;
      g_run_state.compare_exchange_strong(expected, RunState::kRecording);
      state = RunState::kRecording;
    }
    if (!TraceOpen(state)) return nullptr;
    if (stop_ns && now >= stop_ns) {
      RunState expected = RunState::kRecording;
      if (g_run_state.compare_exchange_strong(expected, RunState::kFinished)) {
        EndTrace(EndReason::kWindowEnd);
        ForEachHook([](const SourceHooks& h) {
          if (h.after_capture_window) h.after_capture_window();
        });
      }
      return nullptr;
    }
    bool flush_now = now >= next_flush;
    // Outside the flush lock: CUPTI may call back into the buffer queue.
    if (state == RunState::kRecording) {
      ForEachHook([&](const SourceHooks& h) {
        if (h.on_tick) h.on_tick(now);
      });
    }
    if (flush_now) BeforeFlush(false);
    if (!LockFlush(tick_ns)) continue;
    bool ok = true;
    if (flush_now) {
      ok = g_writer->Flush();
      next_flush = now + flush_ns;
    } else {
      ok = g_writer->Drain();
    }
    if (!ok) FailWriting();  // under the lock: error() is the holder's to read
    UnlockFlush();
    if (!ok) return nullptr;
  }
}

bool StartWriter() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  // Signals belong to the application's threads, not ours.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&thread, &attr, WriterMain, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (rc == 0) pthread_setname_np(thread, "vprof-writer");
  return rc == 0;
}

void OnExit() {
  if (!TraceOpen(g_run_state.load())) return;
  g_run_state.store(RunState::kFinished);
  EndTrace(EndReason::kExit);
}

// A forked child has one thread (the forker) and copies of every lock, some
// possibly held by threads that do not exist in it. Reset, never wait.
void OnForkChild() {
  // After the trace ended (the capture window closed) the wrappers still take their locks.
  if (!RuntimeTracking()) return;
  g_flushing.store(false);
  g_exit_wait_failed.store(false);
  ForEachHook([](const SourceHooks& h) {  // none calls into the loader
    if (h.reset_in_child) h.reset_in_child();
  });
  if (!TraceOpen(g_run_state.load())) return;
  if (!ForkWaitedForLoaderCalls()) {
    // Its writer and exit would walk the loader's list (the loaded libraries, the symbols of
    // the versions it names), whose lock a thread of the parent may have held at the fork.
    Disable(("forked while vprof was inside the dynamic loader (fork waits for it at most " +
             std::to_string(kForkWaitNs / 1'000'000'000) + " s)")
                .c_str());
    return;
  }
  GlobalThreadBuffers().ResetInChild();
  g_run->pid = getpid();
  g_run->ppid = getppid();
  g_run->forked_child = true;
  g_run->start_ns = NowNs();
  g_run->start_realtime_ns = RealtimeNs();
  g_writer->ResetInChild(g_run);
  if (!StartWriter()) Disable("cannot start the writer thread in a forked child");
}

// The path this library was loaded from, which the sources' start hooks name (SourceStart).
std::string SelfPath() {
  Dl_info self{};
  dladdr(reinterpret_cast<const void*>(&SelfPath), &self);
  return self.dli_fname ? self.dli_fname : "";
}

// Every source's start of one stage, in the table's order.
void StartSources(StartStage stage, const SourceStart& start) {
  ForEachHook([&](const SourceHooks& h) {
    if (h.start && h.stage == stage) h.start(start);
  });
}

void Initialise(const CaptureSources& sources) {
  g_sources = &sources;
  SettingsResult parsed = ParseSettings([](const char* n) -> const char* { return getenv(n); });
  InitLog(parsed.settings.log_level);
  if (!parsed.error.empty()) {
    Disable(parsed.error.c_str());
    return;
  }
  if (!parsed.settings.enabled) {
    g_run_state.store(RunState::kDisabled);
    return;
  }
  g_settings = new Settings(parsed.settings);
  // Before the run state says so: an entry point on another thread may start sources then.
  g_self_path = new std::string(SelfPath());
  g_run = new RunInfo(CollectRunInfo());
  g_window_origin_ns = g_run->start_ns;
  g_writer = new TraceWriter;
  if (!g_writer->Init(*g_settings, g_run, sources)) {
    Disable(g_writer->error());
    return;
  }
  // VPROF_BUFFER_KB is per recording thread and per kind of record.
  const size_t ring_bytes = size_t{g_settings->buffer_kib} * 1024;
  GlobalThreadBuffers().Configure(ring_bytes / sizeof(NcclRecord), ring_bytes / sizeof(NvtxRecord));
  g_run_state.store(g_settings->start_after_s > 0 ? RunState::kWaiting : RunState::kRecording);
  InstallLoaderCallsForkHandlers();  // before any thread of vprof's calls into the loader
  const SourceStart start{*g_settings, *g_self_path};
  StartSources(StartStage::kBeforeWriter, start);
  if (!StartWriter()) {
    Disable("cannot start the writer thread");
    return;
  }
  StartSources(StartStage::kAfterWriter, start);
  std::atexit(OnExit);
  pthread_atfork(nullptr, nullptr, OnForkChild);  // after the loader's: child handlers run in order
  LogDebug("recording to {} (flush every {} ms)", g_settings->output_dir,
           g_settings->flush_interval_ms);
}

}  // namespace

void EnsureInitialized(const CaptureSources& sources) {
  if (g_run_state.load(std::memory_order_acquire) != RunState::kUninitialised) return;
  static std::once_flag once;
  std::call_once(once, [&] {
    try {
      Initialise(sources);
    } catch (const std::exception& e) {
      Disable(e.what());
    } catch (...) {
      Disable("internal error during initialisation");
    }
  });
}

bool FlushTraceAtExit() {
  if (!TraceOpen(g_run_state.load())) return false;
  if (!LockFlushAtExit()) return false;
  const bool ok = g_writer->Flush();
  if (!ok) FailWriting();
  g_writer->EndWritesBy(0);  // the program's own exit work may follow: it is not bounded
  UnlockFlush();
  return ok;
}

void StartAtCudaInit() {
  if (!RuntimeTracking()) return;
  StartSources(StartStage::kAtCudaInit, SourceStart{*g_settings, *g_self_path});
}

void Submit(const NcclRecord& r) {
  ThreadBuffer* b = GlobalThreadBuffers().Current();
  if (!b) {
    GlobalThreadBuffers().CountLostWithoutBuffer();
    return;
  }
  b->nccl.Push(r);
}

}  // namespace vprof
