"""A program that forks 100 children under the preload finishes, and leaves
101 whole traces (each child its own file, none a copy of its parent's)."""
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
print(f"ok: 101 traces from 1 parent + 100 forked children")
