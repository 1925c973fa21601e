"""vprof's own log lines: at VPROF_LOG_LEVEL=debug the formatted debug line
names the process's own pid, the output folder and the flush period given; at
the default level (warn) the same run writes nothing to stderr."""
import sys

from harness import LIBVPROF, base_env, check, run, temp_dir

out = temp_dir("log_lines")
cmd = [sys.executable, "-c", "import os; print(os.getpid())"]

r = run(cmd, preload=[LIBVPROF],
        env=base_env(VPROF_OUTPUT_DIR=out, VPROF_LOG_LEVEL="debug", VPROF_FLUSH_MS="125"))
check(r.returncode == 0, f"program failed under debug logging: {r}")
pid = int(r.stdout.split()[0])
expected = f"vprof: {pid} debug: recording to {out} (flush every 125 ms)"
check(expected in r.stderr.splitlines(), f"no line {expected!r} in {r.stderr!r}")

r = run(cmd, preload=[LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=out, VPROF_FLUSH_MS="125"))
check(r.returncode == 0 and r.stderr == "", f"the default level wrote to stderr: {r.stderr!r}")
print("ok: a debug line formatted with its arguments at debug, nothing at warn")
