"""Programs that know nothing of NCCL behave identically under the preload:
same output, same exit code; and each leaves a whole trace."""
import os
import sys

from harness import LIBVPROF, base_env, check, report_json, run, temp_dir, traces

trace_dir = temp_dir("safety")
cases = [
    ["/bin/ls", "-la", os.path.dirname(os.path.abspath(__file__))],
    ["/bin/ls", "/definitely/not/here"],  # exit code 2 and a message on stderr
    ["sh", "-c", "echo out; echo err >&2; exit 7"],
    [sys.executable, "-c", "import sys, os; print(sorted(os.listdir('/'))[:3]); sys.exit(3)"],
]
for cmd in cases:
    bare = run(cmd, env=base_env(VPROF_OUTPUT_DIR=trace_dir))
    traced = run(cmd, preload=[LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=trace_dir))
    check(bare.returncode == traced.returncode,
          f"{cmd}: exit {traced.returncode} under vprof, {bare.returncode} without")
    check(bare.stdout == traced.stdout, f"{cmd}: stdout differs")
    check(bare.stderr == traced.stderr, f"{cmd}: stderr differs: {traced.stderr!r}")

# ls and python end with exit(): each leaves a whole trace. dash records
# nothing and ends with _exit(), skipping exit handlers: it leaves none.
n = len(traces(trace_dir))
check(n == len(cases) - 1, f"expected {len(cases) - 1} traces, found {n}")
rep = report_json(trace_dir)
check(all(p["whole"] and not p["is_rank"] for p in rep["processes"]),
      f"traces not whole: {rep['processes']}")
print(f"ok: {len(cases)} programs unchanged, {n} traces")
