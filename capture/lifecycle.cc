// Initialisation, the writer thread, and the ends of a process: exit, the
// capture window's end, fork.
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
// a call into the host program or a library other than libc.
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

#include "clock.h"
#include "collective_audit.h"
#include "comm_registry.h"
#include "deep_windows.h"
#include "device_memory_sampler.h"
#include "fingerprint_drain.h"
#include "gpu_capture.h"
#include "injection_status.h"
#include "loaded_libraries.h"
#include "log.h"
#include "nccl_plugin.h"
#include "nvtx_open_ranges.h"
#include "process_title.h"
#include "run_info.h"
#include "runtime.h"
#include "settings.h"
#include "sources.h"
#include "thread_buffers.h"
#include "trace_writer.h"

namespace vprof {

std::atomic<RunState> g_run_state{RunState::kUninitialised};

namespace {

// All created once by initialise() and never destroyed (see log.h).
Settings* g_settings = nullptr;
RunInfo* g_run = nullptr;
TraceWriter* g_writer = nullptr;
uint64_t g_window_origin_ns = 0;

std::atomic<bool> g_flushing{false};

void sleep_ns(uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

bool lock_flush(uint64_t timeout_ns) {
  uint64_t deadline = now_ns() + timeout_ns;
  while (g_flushing.exchange(true, std::memory_order_acquire)) {
    if (now_ns() > deadline) return false;
    sleep_ns(50000);
  }
  return true;
}
void unlock_flush() { g_flushing.store(false, std::memory_order_release); }

void disable(const char* why) {
  RunState prev = g_run_state.exchange(RunState::kDisabled);
  if (prev != RunState::kDisabled) {
    log().warn("{}; profiling is off for this process, which runs on unaffected", why);
  }
}

void end_trace(EndReason reason, uint64_t timeout_ns) {
  request_gpu_flush(true);
  if (!lock_flush(timeout_ns)) return;  // the writer is stuck: leave what was flushed
  if (!g_writer->finish(reason)) disable(g_writer->error());
  unlock_flush();
}

void* writer_main(void*) {
  const uint64_t flush_ns = uint64_t{g_settings->flush_interval_ms} * 1000000ull;
  const uint64_t tick_ns = flush_ns < 10000000ull ? flush_ns : 10000000ull;
  const uint64_t start_ns =
      g_window_origin_ns + static_cast<uint64_t>(g_settings->start_after_s * 1e9);
  const uint64_t stop_ns =
      g_settings->stop_after_s > 0
          ? g_window_origin_ns + static_cast<uint64_t>(g_settings->stop_after_s * 1e9)
          : 0;
  uint64_t next_flush = now_ns() + flush_ns;
  for (;;) {
    sleep_ns(tick_ns);
    uint64_t now = now_ns();
    RunState state = g_run_state.load();
    if (state == RunState::kWaiting && now >= start_ns) {
      RunState expected = RunState::kWaiting;
      g_run_state.compare_exchange_strong(expected, RunState::kRecording);
      state = RunState::kRecording;
    }
    if (state != RunState::kWaiting && state != RunState::kRecording) return nullptr;
    if (stop_ns && now >= stop_ns) {
      RunState expected = RunState::kRecording;
      if (g_run_state.compare_exchange_strong(expected, RunState::kFinished)) {
        end_trace(EndReason::kWindowEnd, 2000000000ull);
      }
      return nullptr;
    }
    bool flush_now = now >= next_flush;
    // Outside the flush lock: CUPTI may call back into the buffer queue.
    if (state == RunState::kRecording) update_deep_windows(now, realtime_ns());
    if (flush_now) request_gpu_flush(device_memory_sampler().waiting_for_device());
    if (!lock_flush(tick_ns)) continue;
    bool ok = true;
    if (flush_now) {
      ok = g_writer->flush();
      next_flush = now + flush_ns;
    } else {
      ok = g_writer->drain();
    }
    unlock_flush();
    if (!ok) {
      disable(g_writer->error());
      return nullptr;
    }
  }
}

bool start_writer() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  // Signals belong to the application's threads, not ours.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&thread, &attr, writer_main, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (rc == 0) pthread_setname_np(thread, "vprof-writer");
  return rc == 0;
}

void on_exit() {
  RunState s = g_run_state.load();
  if (s != RunState::kWaiting && s != RunState::kRecording) return;
  g_run_state.store(RunState::kFinished);
  end_trace(EndReason::kExit, 2000000000ull);
}

// A forked child has one thread (the forker) and copies of every lock, some
// possibly held by threads that do not exist in it. Reset, never wait.
void on_fork_child() {
  RunState s = g_run_state.load();
  if (s != RunState::kWaiting && s != RunState::kRecording) return;
  g_flushing.store(false);
  reset_gpu_capture_in_child();
  reset_fingerprints_in_child();
  reset_deep_windows_in_child();
  reset_nccl_plugin_in_child();
  if (NvtxOpenRanges* open = nvtx_open_ranges()) open->reset_in_child();
  if (TitleWatch* watch = title_watch()) watch->reset_in_child();
  if (LoadedLibraryWatch* watch = loaded_library_watch()) watch->reset_in_child();
  rewrite_injection_status_in_child();
  thread_buffers().reset_in_child();
  comm_registry().reset_in_child();
  g_run->pid = getpid();
  g_run->ppid = getppid();
  g_run->forked_child = true;
  g_run->start_ns = now_ns();
  g_run->start_realtime_ns = realtime_ns();
  g_writer->reset_in_child(g_run);
  if (!start_writer()) disable("cannot start the writer thread in a forked child");
}

// The path this library was loaded from, which the hooks below name.
std::string self_path() {
  Dl_info self{};
  dladdr(reinterpret_cast<const void*>(&self_path), &self);
  return self.dli_fname ? self.dli_fname : "";
}

// Makes the CUDA driver call InitializeInjection at cuInit and every NVTX
// module call InitializeInjectionNvtx2, in this process and in children that
// inherit the environment (even when a launcher replaces LD_PRELOAD), unless
// another tool owns a hook already. Runs before main, before any thread of
// the program reads the environment.
void claim_injection_hooks(bool gpu_capture) {
  const std::string self = self_path();
  const char* path = self.empty() ? nullptr : self.c_str();
  if (!gpu_capture) {
    note_gpu_capture_unavailable("VPROF_GPU=0");
  } else if (std::string other = claim_variable("CUDA_INJECTION64_PATH", path); !other.empty()) {
    note_cuda_injection(other.c_str());
    note_gpu_capture_unavailable("CUDA_INJECTION64_PATH names another tool");
    log().warn("CUDA_INJECTION64_PATH={} belongs to another tool: no GPU capture", other);
  }
  std::string other_nvtx = claim_variable("NVTX_INJECTION64_PATH", path);
  note_hook_claim(InjectionHook::kNvtx, other_nvtx, other_nvtx.empty() && path);
  if (!other_nvtx.empty()) {
    log().warn("NVTX_INJECTION64_PATH={} belongs to another tool: no NVTX capture", other_nvtx);
  }
}

void initialise() {
  SettingsResult parsed = parse_settings([](const char* n) -> const char* { return getenv(n); });
  init_log(parsed.settings.log_level);
  if (!parsed.error.empty()) {
    disable(parsed.error.c_str());
    return;
  }
  if (!parsed.settings.enabled) {
    g_run_state.store(RunState::kDisabled);
    return;
  }
  g_settings = new Settings(parsed.settings);
  g_run = new RunInfo(collect_run_info());
  g_window_origin_ns = g_run->start_ns;
  // Now, while the title is still the one the RunHeader's argv holds.
  configure_title_watch();
  configure_loaded_library_watch();
  g_writer = new TraceWriter;
  if (!g_writer->init(*g_settings, g_run, capture_sources())) {
    disable(g_writer->error());
    return;
  }
  // VPROF_BUFFER_KB is per recording thread and per kind of record.
  const size_t ring_bytes = size_t{g_settings->buffer_kib} * 1024;
  thread_buffers().configure(ring_bytes / sizeof(NcclRecord), ring_bytes / sizeof(NvtxRecord));
  g_run_state.store(g_settings->start_after_s > 0 ? RunState::kWaiting : RunState::kRecording);
  // Before the writer thread, which alone uses it after this.
  configure_deep_windows(g_settings->deep, g_settings->output_dir,
                         uint64_t{g_settings->flush_interval_ms} * 1000000ull);
  if (!start_writer()) {
    disable("cannot start the writer thread");
    return;
  }
  configure_collective_audit(*g_settings);
  claim_injection_hooks(g_settings->gpu_capture);
  configure_nccl_plugin(*g_settings, self_path());
  std::atexit(on_exit);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  log().debug("recording to {} (flush every {} ms)", g_settings->output_dir,
              g_settings->flush_interval_ms);
}

}  // namespace

void ensure_initialized() {
  if (g_run_state.load(std::memory_order_acquire) != RunState::kUninitialised) return;
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      initialise();
    } catch (const std::exception& e) {
      disable(e.what());
    } catch (...) {
      disable("internal error during initialisation");
    }
  });
}

std::string cupti_kinds_setting() { return g_settings ? g_settings->cupti_kinds : ""; }

DeepSchedule deep_schedule_setting() { return g_settings ? g_settings->deep : DeepSchedule{}; }

void submit(const NcclRecord& r) {
  ThreadBuffer* b = thread_buffers().current();
  if (!b) {
    thread_buffers().count_lost_without_buffer();
    return;
  }
  b->nccl.push(r);
}

}  // namespace vprof
