"""A program that forks 100 children under the preload finishes, and leaves
101 whole traces (each child its own file, none a copy of its parent's). Children
that exec after their writer flushed leave one whole trace each, of the image
they became, and no unfinished one of the image they were."""
import os

from harness import BUILD, LIBVPROF, base_env, check, report_json, run, temp_dir, traces

trace_dir = temp_dir("fork")
prog = os.path.join(BUILD, "tests", "integration", "fork_children")
r = run([prog, "100"], preload=[LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=trace_dir), timeout=120)
check(r.returncode == 0, f"fork_children failed: {r.returncode} {r.stderr}")
check(r.stdout.strip() == "forked 100 children, 0 failed", r.stdout)
files = traces(trace_dir)
check(len(files) == 101, f"expected 101 traces, found {len(files)}")
pids = {f.split(".")[-2] for f in files}
check(len(pids) == 101, "trace names do not carry 101 distinct pids")

# Each child waits 100 ms (ten flush intervals) before it execs `true`.
trace_dir = temp_dir("fork-exec")
r = run([prog, "20", "100"], preload=[LIBVPROF],
        env=base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_FLUSH_MS=10), timeout=120)
check(r.returncode == 0, f"fork_children with exec failed: {r.returncode} {r.stderr}")
check(r.stdout.strip() == "forked 20 children, 0 failed", r.stdout)
files = traces(trace_dir)
check(len(files) == 21, f"expected 21 traces (parent + 20 exec'd images), found {files}")
rep = report_json(trace_dir)
check(len(rep["processes"]) == 21 and all(p["whole"] for p in rep["processes"]),
      f"traces not whole: {[(p['file'], p['whole']) for p in rep['processes']]}")
print("ok: 101 traces from 1 parent + 100 forked children; 21 whole ones with exec")
