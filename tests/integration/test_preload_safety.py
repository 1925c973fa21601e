"""Programs that know nothing of NCCL behave identically under the preload:
same output, same exit code; and each leaves a whole trace. A program of
1,400 threads that each make a CUDA and an NCCL call runs to its end under
`ulimit -v 2000000`: vprof's record buffers are bounded in all, and the
threads left without one have their records dropped, counted and named."""
import os
import re
import resource
import sys

from harness import BUILD, LIBVPROF, base_env, check, report_json, run, temp_dir, traces

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

# The rings of 1,400 threads (1.4 MiB each at the default) would take 2 GB.
many_dir = temp_dir("many-threads")
THREADS = 1400


def address_limit():
    resource.setrlimit(resource.RLIMIT_AS, (2000000 * 1024, 2000000 * 1024))


many = run([os.path.join(BUILD, "tests", "integration", "many_threads"), str(THREADS)],
           preload=[LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=many_dir), preexec_fn=address_limit)
check(many.returncode == 0 and many.stdout == f"many_threads: {THREADS} threads, ok\n",
      f"many_threads under vprof: exit {many.returncode}, {many.stdout!r}, {many.stderr[-800:]!r}")
process = report_json(many_dir)["processes"][0]
# Two calls a thread: each recorded or dropped.
check(process["nccl_events"] + process["dropped_events"] == 2 * THREADS,
      f"calls unaccounted for: {process}")
without = re.search(r"([\d,]+) threads found all of vprof's record buffers \(256 MiB in all\)",
                    process["problem"] or "")
check(without is not None and process["dropped_events"] > 0,
      f"the threads without a buffer are not named: {process}")
check(2 * int(without.group(1).replace(",", "")) == process["dropped_events"],
      f"dropped records are not those threads' calls: {process}")
print(f"ok: {THREADS} threads under ulimit -v, {process['dropped_events']} records dropped")
