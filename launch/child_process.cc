#include "launch/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string_view>

namespace vprof::reporter {
namespace {

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kNotExecutable = 126;

volatile sig_atomic_t g_child = 0;

void Forward(int signal, siginfo_t* info, void*) {
  // SI_KERNEL: the terminal's job control, which signals the whole
  // foreground process group, the child included.
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  if (g_child > 0) kill(g_child, signal);
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& text : strings) pointers.push_back(const_cast<char*>(text.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

[[noreturn]] void ExecChild(char* const* argv, char* const* envp) {
  execvpe(argv[0], argv, envp);
  const int error = errno;
  std::fprintf(stderr, "vprof: cannot run '%s': %s\n", argv[0], std::strerror(error));
  _exit(error == ENOENT ? kCommandNotFound : kNotExecutable);
}

}  // namespace

ChildEnd RunChild(const std::vector<std::string>& command,
                  const std::vector<std::string>& environment) {
  std::vector<char*> argv = CStrings(command);
  std::vector<char*> envp = CStrings(environment);
  struct sigaction forward {};
  forward.sa_sigaction = Forward;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&forward.sa_mask);
  sigset_t forwarded, unblocked;
  sigemptyset(&forwarded);
  struct sigaction previous[std::size(kForwardedSignals)];
  for (size_t i = 0; i < std::size(kForwardedSignals); ++i) {
    sigaction(kForwardedSignals[i], &forward, &previous[i]);
    sigaddset(&forwarded, kForwardedSignals[i]);
  }
  // Held until the child's pid is known, so that none is lost in between.
  sigprocmask(SIG_BLOCK, &forwarded, &unblocked);

  const pid_t child = fork();
  if (child == 0) {
    // The child starts with the dispositions and mask vprof itself was given.
    for (size_t i = 0; i < std::size(kForwardedSignals); ++i) {
      sigaction(kForwardedSignals[i], &previous[i], nullptr);
    }
    sigprocmask(SIG_SETMASK, &unblocked, nullptr);
    ExecChild(argv.data(), envp.data());
  }
  const int fork_error = errno;
  g_child = child;
  sigprocmask(SIG_SETMASK, &unblocked, nullptr);

  ChildEnd end;
  if (child < 0) {
    std::fprintf(stderr, "vprof: cannot start '%s': %s\n", argv[0], std::strerror(fork_error));
    end.status = kNotExecutable;
  } else {
    int wait_status = 0;
    while (waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(wait_status)) {
      end.signal = WTERMSIG(wait_status);
      end.status = 128 + end.signal;
    } else {
      end.status = WEXITSTATUS(wait_status);
    }
  }
  g_child = 0;
  for (size_t i = 0; i < std::size(kForwardedSignals); ++i) {
    sigaction(kForwardedSignals[i], &previous[i], nullptr);
  }
  return end;
}

bool CanExecute(const std::string& program, const char* path) {
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  // execvp's default when PATH is unset.
  std::string_view dirs = path != nullptr ? path : "/bin:/usr/bin";
  while (true) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    // An empty entry is the current directory.
    const std::string candidate =
        (dir.empty() ? std::string(".") : std::string(dir)) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace vprof::reporter
