// Helpers for tests that run NCCL ranks as forked child processes. Catch2 assertions cannot
// report from a child, so a child checks with RankCheck, prints what failed on stderr and
// reports through its exit code; the parent asserts that every rank exited 0.
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace standins_test {

// Collects failures inside one rank.
class RankCheck {
 public:
  explicit RankCheck(int rank) : rank_(rank) {}
  bool operator()(bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "rank %d: check failed: %s\n", rank_, what.c_str());
      failed_ = true;
    }
    return ok;
  }
  int exit_code() const { return failed_ ? 1 : 0; }

 private:
  int rank_;
  bool failed_ = false;
};

// Runs body(rank) in `nranks` forked processes and returns their exit codes (body's return
// value; 128+signal for a killed child). Children still running after `timeout` are killed.
inline std::vector<int> RunRanks(int nranks, const std::function<int(int)>& body,
                                 std::chrono::seconds timeout = std::chrono::seconds(30)) {
  std::fflush(nullptr);
  std::vector<pid_t> pids;
  for (int rank = 0; rank < nranks; ++rank) {
    const pid_t pid = fork();
    // _exit: the child must not run the parent's atexit handlers (Catch2's reporting).
    if (pid == 0) _exit(body(rank));
    pids.push_back(pid);
  }
  std::vector<int> codes(pids.size(), -1);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (size_t done = 0; done < pids.size();) {
    for (size_t i = 0; i < pids.size(); ++i) {
      int status = 0;
      if (codes[i] != -1 || waitpid(pids[i], &status, WNOHANG) != pids[i]) continue;
      codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      ++done;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      for (size_t i = 0; i < pids.size(); ++i) {
        if (codes[i] == -1) kill(pids[i], SIGKILL);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return codes;
}

inline std::vector<int> AllZero(int nranks) { return std::vector<int>(nranks, 0); }

// An array in memory shared with forked children, for results the parent checks.
template <typename T>
class SharedArray {
 public:
  explicit SharedArray(size_t size)
      : size_(size),
        data_(static_cast<T*>(mmap(nullptr, size * sizeof(T), PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0))) {}
  ~SharedArray() { munmap(data_, size_ * sizeof(T)); }
  SharedArray(const SharedArray&) = delete;
  SharedArray& operator=(const SharedArray&) = delete;

  T& operator[](size_t i) { return data_[i]; }

 private:
  size_t size_;
  T* data_;
};

}  // namespace standins_test
