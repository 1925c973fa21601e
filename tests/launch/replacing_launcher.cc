// A launcher that assigns LD_PRELOAD for the program it starts, replacing
// whatever was there, as vime does for its train actors in colocate mode:
//   replacing_launcher PRELOAD PROGRAM [ARGS...]   (PRELOAD may be "")
// Exits with the program's status.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: replacing_launcher PRELOAD PROGRAM [ARGS...]\n");
    return 2;
  }
  const pid_t child = fork();
  if (child == 0) {
    setenv("LD_PRELOAD", argv[1], 1);
    execv(argv[2], argv + 2);
    std::perror("replacing_launcher: execv");
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) < 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
