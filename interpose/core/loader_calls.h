// vprof's own walks of the dynamic loader's list, and loads, made safe for
// fork.
//
// dl_iterate_phdr holds the loader's list lock (dl_load_write_lock) while it
// calls back, and dlopen/dlclose hold it while they add or remove an object;
// glibc's fork neither waits for nor resets that lock (it resets the other,
// dl_load_lock, in the child). A child forked while a vprof thread held it
// (the writer's walk of the loaded objects, at most once a second; its
// symbol lookup at its first write; CUPTI's and NVML's loading) keeps it
// held by a thread it does not have, and its first walk or load (vprof's own
// at exit, an exception's unwinding, an import) waits forever: one of a
// hundred forked children hung so in the fork test on a loaded machine.
//
// So those calls run inside a LoaderCallScope, and fork, in vprof's prepare
// handler, waits until no thread is inside one. Scopes do not exclude one
// another (a thread inside may wait for the loader's other lock, held by a
// thread that would enter a scope next: a mutex here deadlocked so); they
// count. A scope begun while a fork waits lets the fork go first. Both waits
// are bounded by kForkWaitNs, since a program may fork from inside the
// loader itself (a library's constructor), and a scope may wait for that;
// the child of a fork that went on with a thread inside a scope, or from
// inside one, is told so and turns vprof off in itself. It may still meet the
// loader's lock held: only a loader stalled for a second does that.
#pragma once

#include <cstdint>

namespace vprof {

class LoaderCallScope {
 public:
  LoaderCallScope();
  ~LoaderCallScope();
  LoaderCallScope(const LoaderCallScope&) = delete;
  LoaderCallScope& operator=(const LoaderCallScope&) = delete;
};

// How long fork waits for the scopes under way, and a new scope for a fork.
inline constexpr uint64_t kForkWaitNs = 1'000'000'000;

// Registers the fork handlers (pthread_atfork). Called once, before any
// thread of vprof's starts.
void InstallLoaderCallsForkHandlers();

// In a forked child: false when a thread of the parent, or the forking one,
// was inside a scope at the fork (the loader's lock may be held, so the child
// must make no loader call of vprof's).
bool ForkWaitedForLoaderCalls();

}  // namespace vprof
