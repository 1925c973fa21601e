// The hooks other software honours to load vprof by environment variable
// (NVTX_INJECTION64_PATH, NCCL_PROFILER_PLUGIN), whether vprof claimed them,
// and whether their owner actually called in. Written to the trace as
// InjectionStatus packets so a report can say why a source is missing.
#pragma once

#include <cstdint>
#include <string>

namespace vprof {

class TraceWriter;

// Values are the schema's InjectionHook numbers.
enum class InjectionHook : uint32_t { kNvtx = 1, kNcclProfiler = 2 };

// Sets `variable` to this library's path, in this process and the children
// that inherit its environment, unless it names another library already;
// returns the other library's value, or "" when vprof holds the variable.
// Call before the program's threads read the environment (at load).
std::string ClaimVariable(const char* variable, const char* self_path);

// Records what ClaimVariable found for the hook (at load).
void NoteHookClaim(InjectionHook hook, const std::string& found, bool claimed);
// The hook's owner called vprof (version: of the interface it spoke) or
// offered something vprof could not use. Any thread.
void NoteHookAttached(InjectionHook hook, uint32_t version);
void NoteHookNotAttached(InjectionHook hook, const char* why);

// Writer thread, flush lock held: an InjectionStatus packet for each hook
// whose state changed since the last call. False when the trace cannot be
// written.
bool PutInjectionStatus(TraceWriter& writer);
// In a forked child: the child's file must say it again.
void RewriteInjectionStatusInChild();

}  // namespace vprof
