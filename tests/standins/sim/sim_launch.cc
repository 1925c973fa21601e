// sim_launch -n N [--] PROGRAM ARGS...: starts N ranks of PROGRAM the way torchrun does on one
// node, with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK=0 and VPROF_SIM_RDZV (a
// fresh rendezvous directory) in their environment. Exits 0 if every rank does; otherwise with
// the status of the first rank that failed (128+signal if it was killed), after sending SIGTERM
// to the others. SIGINT and SIGTERM sent to the launcher are passed on to the ranks.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

constexpr int kMaxRanks = 64;

// The running ranks (0 once reaped), read by the signal handler.
volatile pid_t g_ranks[kMaxRanks];
int g_rank_count = 0;

void ForwardSignal(int signal_number) {
  for (int rank = 0; rank < g_rank_count; ++rank) {
    if (g_ranks[rank] > 0) kill(g_ranks[rank], signal_number);
  }
}

int Usage() {
  std::fprintf(stderr, "usage: sim_launch -n N [--] PROGRAM ARGS...  (1 <= N <= %d)\n", kMaxRanks);
  return 2;
}

// The exit status the launcher reports for a rank's wait status.
int ExitCodeOf(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

pid_t StartRank(int rank, int nranks, const std::string& rendezvous_dir, char** command) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const std::string rank_text = std::to_string(rank);
  const std::string nranks_text = std::to_string(nranks);
  setenv("RANK", rank_text.c_str(), 1);
  setenv("LOCAL_RANK", rank_text.c_str(), 1);
  setenv("WORLD_SIZE", nranks_text.c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", nranks_text.c_str(), 1);
  setenv("GROUP_RANK", "0", 1);
  setenv("VPROF_SIM_RDZV", rendezvous_dir.c_str(), 1);
  execvp(command[0], command);
  std::fprintf(stderr, "sim_launch: cannot run %s: %s\n", command[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[1], "-n") != 0) return Usage();
  char* end = nullptr;
  const long nranks = std::strtol(argv[2], &end, 10);
  if (*end != '\0' || nranks < 1 || nranks > kMaxRanks) return Usage();
  int first_arg = 3;
  if (std::strcmp(argv[first_arg], "--") == 0) ++first_arg;
  if (first_arg >= argc) return Usage();
  char** command = argv + first_arg;

  std::string rendezvous_template =
      (std::filesystem::temp_directory_path() / "vprof-sim-rdzv.XXXXXX").string();
  if (mkdtemp(rendezvous_template.data()) == nullptr) {
    std::fprintf(stderr, "sim_launch: mkdtemp: %s\n", std::strerror(errno));
    return 1;
  }
  const std::string rendezvous_dir = rendezvous_template;

  std::fflush(nullptr);  // nothing buffered may be written twice by the children
  int exit_code = 0;
  bool failed = false;
  for (int rank = 0; rank < nranks; ++rank) {
    const pid_t pid = StartRank(rank, static_cast<int>(nranks), rendezvous_dir, command);
    if (pid < 0) {
      std::fprintf(stderr, "sim_launch: fork: %s\n", std::strerror(errno));
      failed = true;
      exit_code = 1;
      ForwardSignal(SIGTERM);
      break;
    }
    g_ranks[g_rank_count++] = pid;
  }
  signal(SIGINT, ForwardSignal);
  signal(SIGTERM, ForwardSignal);

  for (int running = g_rank_count; running > 0;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int rank = 0; rank < g_rank_count; ++rank) {
      if (g_ranks[rank] == pid) g_ranks[rank] = 0;
    }
    --running;
    if (!failed && ExitCodeOf(status) != 0) {
      failed = true;
      exit_code = ExitCodeOf(status);
      ForwardSignal(SIGTERM);
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(rendezvous_dir, ignored);
  return exit_code;
}
