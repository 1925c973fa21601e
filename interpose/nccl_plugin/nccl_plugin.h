// NCCL's profiler plugin, inside libvprof.so.
//
// NCCL (2.27+) dlopens the library NCCL_PROFILER_PLUGIN names and calls the
// struct it finds: libvprof.so exports ncclProfiler_v4, _v5 and _v6, and at
// load points NCCL_PROFILER_PLUGIN at itself. This reaches collectives that
// no symbol wrapper sees (vLLM's PyNccl calls NCCL through a dlsym handle; a
// launcher may replace LD_PRELOAD), and adds what only NCCL knows: algorithm,
// protocol, channels, NCCL's own sequence numbers, and with
// VPROF_NCCL_KERNEL_CH=1 per-channel GPU times.
//
// Threads: NCCL calls in from the application's threads and its proxy
// threads; the callbacks take no lock, allocate nothing and make no system
// call (nccl_plugin_pool.h). The writer thread moves finished events into
// NcclPluginBatch packets. Nothing is ever returned to NCCL as an error and no
// exception leaves a callback: a vprof failure only loses events.
#pragma once

#include <string>

#include "common/settings.h"
#include "interpose/core/capture_source.h"
#include "interpose/nccl_plugin/nccl_profiler_abi.h"

// The structs NCCL looks up by name (entry_points.def lists them for export).
extern "C" {
extern vprof::nccl_abi::PluginV4 ncclProfiler_v4;
extern vprof::nccl_abi::PluginV5 ncclProfiler_v5;
extern vprof::nccl_abi::PluginV6 ncclProfiler_v6;
}

namespace vprof {

class TraceWriter;

// At load, once settings are read: what init will enable (VPROF_NCCL_PLUGIN,
// VPROF_NCCL_KERNEL_CH, VPROF_NCCL_PROXY), and NCCL_PROFILER_PLUGIN set to
// self_path (in this process and the children that inherit its environment)
// unless the plugin is off or the variable names another library; the outcome
// goes to the trace as an InjectionStatus packet. Before this runs, init
// enables nothing. Call before the program's threads read the environment.
void ConfigureNcclPlugin(const Settings& settings, const std::string& self_path);

// Writer thread, flush lock held, not from a signal handler (it interns
// strings): writes new and finalized communicators and every finished event
// as NcclPluginBatch packets, and counts them for the footer. Must not be
// called with a packet open. False when the trace cannot be written.
bool DrainNcclPlugin(TraceWriter& writer);
// The Footer's "nccl_plugin" KindCount: events written, and events dropped.
extern const SourceCount kNcclPluginCount;

// In a forked child (the forking thread, no other thread exists): events
// and communicators so far are the parent's. Takes no lock.
void ResetNcclPluginInChild();

}  // namespace vprof
