// Forks N children (default 100) that each make one NCCL-free exit; the
// parent waits for all. Under the preload this must finish and leave N + 1
// traces: a forked child must never deadlock on state inherited mid-flight.
// With a second argument MS, each child instead waits MS milliseconds (long
// enough for its writer to flush) and then execs `true`, as a launcher does
// (-1: exits at once). With a third argument GAP, the parent sleeps GAP
// milliseconds before each fork, so the forks spread over the writer's ticks.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 100;
  int exec_after_ms = argc > 2 ? std::atoi(argv[2]) : -1;
  int gap_ms = argc > 3 ? std::atoi(argv[3]) : 0;
  // A busy second thread while forking: the state it holds is what a child
  // inherits half-way.
  volatile bool stop = false;
  std::thread busy([&] {
    while (!stop) {
      std::vector<int> churn(64);
      churn[0] = 1;
    }
  });
  std::vector<pid_t> children;
  for (int i = 0; i < n; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      return 2;
    }
    if (pid == 0) {
      if (exec_after_ms < 0) std::exit(0);  // exit(), not _exit(): atexit handlers run
      std::this_thread::sleep_for(std::chrono::milliseconds(exec_after_ms));
      execlp("true", "true", static_cast<char*>(nullptr));
      _exit(127);
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    int status = 0;
    const pid_t waited = waitpid(children[i], &status, 0);
    if (waited == children[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    ++failed;
    // Which child and how it ended: a failure seen once must be diagnosable from the log.
    if (waited != children[i]) {
      std::fprintf(stderr, "child %d (pid %d): waitpid failed\n", i, children[i]);
    } else if (WIFSIGNALED(status)) {
      std::fprintf(stderr, "child %d (pid %d): killed by signal %d\n", i, children[i],
                   WTERMSIG(status));
    } else {
      std::fprintf(stderr, "child %d (pid %d): exit status %d\n", i, children[i],
                   WEXITSTATUS(status));
    }
  }
  stop = true;
  busy.join();
  std::printf("forked %d children, %d failed\n", n, failed);
  return failed ? 1 : 0;
}
