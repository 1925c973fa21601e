// vprof's loader calls and fork, with real forks and threads: fork waits for
// a scope under way (its holder had finished when fork returned), a nested
// scope of the holder does not wait for that fork, a waiting fork goes before
// scopes begun back to back, past the bound fork goes on and the child is
// told so, a fork from inside a scope tells its child too, and scopes never
// exclude one another (a scope's holder may wait for a thread entering one).
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>

#include "interpose/core/loader_calls.h"

namespace {

using std::chrono::milliseconds;

void InstallOnce() {
  static const bool installed = [] {
    vprof::InstallLoaderCallsForkHandlers();
    return true;
  }();
  (void)installed;
}

// A forked child, which writes one byte to `verdict`: '0' when its fork waited for the scopes,
// '1' when it was told otherwise, after taking a scope itself (a scope left taken in the child
// would hang it: the alarm then kills it, and it writes nothing). A pipe rather than the exit
// status, which ThreadSanitizer replaces when the parent's threads are not joined in the child.
struct Child {
  pid_t pid = 0;
  int verdict = -1;
};

Child ForkChild() {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(5);
    const bool waited = vprof::ForkWaitedForLoaderCalls();
    { vprof::LoaderCallScope scope; }
    const char byte = waited ? '0' : '1';
    (void)!write(fds[1], &byte, 1);
    _exit(0);
  }
  close(fds[1]);
  REQUIRE(pid > 0);
  return {pid, fds[0]};
}

// What the child wrote: 0 or 1, or 2 when it wrote nothing.
int ChildVerdict(const Child& child) {
  char byte = 0;
  const ssize_t got = read(child.verdict, &byte, 1);
  close(child.verdict);
  int status = 0;
  REQUIRE(waitpid(child.pid, &status, 0) == child.pid);
  return got == 1 ? byte - '0' : 2;
}

// A thread inside a scope for as long as `inside` takes; constructed once the scope is taken.
class ScopeHolder {
 public:
  template <typename Inside>
  explicit ScopeHolder(Inside inside)
      : thread_([this, inside] {
          vprof::LoaderCallScope scope;
          entered_ = true;
          inside();
          finished_ = true;
        }) {
    while (!entered_) std::this_thread::sleep_for(milliseconds(1));
  }
  ~ScopeHolder() { thread_.join(); }
  bool finished() const { return finished_; }

 private:
  std::atomic<bool> entered_{false}, finished_{false};
  std::thread thread_;
};

}  // namespace

TEST_CASE("fork waits for a scope under way, not for the holder's nested one") {
  InstallOnce();
  ScopeHolder holder([] {
    std::this_thread::sleep_for(milliseconds(150));
    vprof::LoaderCallScope nested;  // the fork waits now: this must not wait for it
    std::this_thread::sleep_for(milliseconds(150));
  });
  const Child child = ForkChild();
  CHECK(holder.finished());
  CHECK(ChildVerdict(child) == 0);
}

TEST_CASE("a waiting fork goes before scopes begun back to back") {
  InstallOnce();
  constexpr int kCalls = 40;  // 25 ms each: 1 s in all, fork's bound
  std::atomic<int> done{0};
  std::atomic<bool> started{false};
  std::thread caller([&] {
    for (int i = 0; i < kCalls; ++i) {
      vprof::LoaderCallScope scope;
      started = true;
      std::this_thread::sleep_for(milliseconds(25));
      ++done;
    }
  });
  while (!started) std::this_thread::sleep_for(milliseconds(1));
  const Child child = ForkChild();
  const int done_at_fork = done.load();
  CHECK(ChildVerdict(child) == 0);
  caller.join();
  // The scope under way when fork began, or the next if the fork came late: without the rule
  // the fork got in after 5 to 14 scopes here, the caller beginning the next one at once.
  CHECK(done_at_fork >= 1);
  CHECK(done_at_fork <= 3);
}

TEST_CASE("past the bound fork goes on, and the child is told so") {
  InstallOnce();
  {
    ScopeHolder holder([] {
      std::this_thread::sleep_for(std::chrono::nanoseconds(vprof::kForkWaitNs) + milliseconds(500));
    });
    const Child child = ForkChild();
    CHECK_FALSE(holder.finished());
    CHECK(ChildVerdict(child) == 1);
  }
  vprof::LoaderCallScope after;  // the parent's scopes go on after such a fork
}

TEST_CASE("a fork from inside a scope tells its child") {
  InstallOnce();
  Child child;
  std::chrono::steady_clock::duration fork_took{};
  {
    vprof::LoaderCallScope scope;
    const auto before = std::chrono::steady_clock::now();
    child = ForkChild();
    fork_took = std::chrono::steady_clock::now() - before;
  }
  CHECK(ChildVerdict(child) == 1);
  // Nor does the fork wait for its own thread's scope (it waited out the bound before).
  CHECK(fork_took < std::chrono::nanoseconds(vprof::kForkWaitNs / 2));
  // And the next fork, from outside, does not.
  CHECK(ChildVerdict(ForkChild()) == 0);
}

TEST_CASE("scopes do not exclude one another") {
  // The holder of a scope waits for a lock that a thread entering a scope holds, as a thread
  // inside the loader waits for the loader's lock held by one in a library's constructor.
  std::mutex held;
  held.lock();
  ScopeHolder holder([&] { const std::lock_guard<std::mutex> wait(held); });
  {
    vprof::LoaderCallScope second;  // hung here when scopes shared a mutex
  }
  held.unlock();
}
