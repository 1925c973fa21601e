#include "interpose/core/loader_calls.h"

#include <pthread.h>

#include <atomic>

#include "interpose/core/clock.h"

namespace vprof {
namespace {

// Threads inside a scope (their outermost one), and forks between their
// prepare and parent handlers. Sequentially consistent: a scope adds itself
// and then looks for forks, a fork adds itself and then looks for scopes, so
// one of the two always sees the other.
std::atomic<int> g_inside{0};
std::atomic<int> g_forks_waiting{0};
// The scopes this thread is inside: a nested one neither counts nor waits.
thread_local int t_depth = 0;
// The child's verdict, set in its handler (one thread in it then).
bool g_child_clean = true;

// The pause between looks while a scope or a fork waits for the other.
constexpr long kPauseNs = 100'000;

void WaitForScopes() {
  g_forks_waiting.fetch_add(1);
  if (t_depth > 0) return;  // forking from inside a scope: the child is told
  PollUntil(NowNs() + kForkWaitNs, kPauseNs, [] { return g_inside.load() == 0; });
}

void ReleaseInParent() { g_forks_waiting.fetch_sub(1); }

void JudgeInChild() {
  // The copy of the count is the parent's at the fork: any scope then, this
  // thread's own included, may have left the loader's lock held.
  g_child_clean = g_inside.load() == 0 && t_depth == 0;
  g_inside.store(t_depth > 0 ? 1 : 0);
  g_forks_waiting.store(0);
}

}  // namespace

LoaderCallScope::LoaderCallScope() {
  if (t_depth++ > 0) return;
  const uint64_t give_up = NowNs() + kForkWaitNs;  // a fork stuck past its own wait
  for (;;) {
    PollUntil(give_up, kPauseNs, [] { return g_forks_waiting.load() == 0; });
    g_inside.fetch_add(1);
    if (g_forks_waiting.load() == 0 || NowNs() > give_up) return;
    g_inside.fetch_sub(1);
  }
}

LoaderCallScope::~LoaderCallScope() {
  if (--t_depth == 0) g_inside.fetch_sub(1);
}

void InstallLoaderCallsForkHandlers() {
  pthread_atfork(WaitForScopes, ReleaseInParent, JudgeInChild);
}

bool ForkWaitedForLoaderCalls() { return g_child_clean; }

}  // namespace vprof
