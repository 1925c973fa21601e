"""A program that forks 100 children under the preload finishes, and leaves
101 whole traces (each child its own file, none a copy of its parent's). Children
that exec after their writer flushed leave one whole trace each, of the image
they became, and no unfinished one of the image they were. A fork never
leaves its child the dynamic loader's list lock held by vprof's writer thread
(libslow_loader.so holds it 300 ms on each of the writer's walks): fork waits
for the walk; a walk longer than that wait (1 s) turns vprof off in the child,
with one warning."""
import os

from harness import BUILD, LIBVPROF, STANDINS, base_env, check, report_json, run, temp_dir, traces

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

# Forks 60 ms apart over the writer's slow walks of the loader's list: before fork waited for
# them, a third of such children hung at exit in vprof's symbol lookup.
SLOW_LOADER = os.path.join(STANDINS, "libslow_loader.so")
trace_dir = temp_dir("fork-loader")
r = run([prog, "30", "-1", "60"], preload=[SLOW_LOADER, LIBVPROF],
        env=base_env(VPROF_OUTPUT_DIR=trace_dir, SLOW_LOADER_MS=300), timeout=60)
check(r.returncode == 0, f"fork_children over a slow loader failed: {r.returncode} {r.stderr}")
check(r.stdout.strip() == "forked 30 children, 0 failed", r.stdout)
check(len(traces(trace_dir)) == 31, f"expected 31 traces, found {len(traces(trace_dir))}")
rep = report_json(trace_dir)
check(all(p["whole"] for p in rep["processes"]), "a child's trace is not whole")

# Walks of 1.5 s, longer than fork waits (1 s): the children forked past the wait run without
# vprof, each saying so once; the others are traced.
trace_dir = temp_dir("fork-loader-held")
r = run([prog, "6", "-1", "300"], preload=[SLOW_LOADER, LIBVPROF],
        env=base_env(VPROF_OUTPUT_DIR=trace_dir, SLOW_LOADER_MS=1500), timeout=60)
check(r.returncode == 0, f"fork_children over a held loader failed: {r.returncode} {r.stderr}")
check(r.stdout.strip() == "forked 6 children, 0 failed", r.stdout)
warned = r.stderr.count("forked while vprof was inside the dynamic loader")
found = len(traces(trace_dir))
check(warned >= 1 and found + warned == 7, f"{found} traces and {warned} warnings for 7 processes")
print("ok: 101 traces from 1 parent + 100 forked children; 21 whole ones with exec; "
      f"31 over a slow loader; {warned} of 6 children past the wait ran without vprof")
