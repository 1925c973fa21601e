"""A program that closes every descriptor and then opens a file of its own
gets that file to itself: vprof writes its trace by name, never through a
descriptor number the program may since have reused."""
import os

from harness import BUILD, LIBVPROF, base_env, check, report_json, run, temp_dir, traces

PROGRAM = os.path.join(BUILD, "tests", "integration", "closes_descriptors")

trace_dir = temp_dir("descriptors")
own = os.path.join(temp_dir("descriptors-own"), "output.txt")
r = run([PROGRAM, own], preload=[LIBVPROF],
        env=base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_FLUSH_MS=20))
check(r.returncode == 0, f"program failed under vprof: {r.returncode} {r.stderr}")
check(r.stderr == "", f"vprof complained: {r.stderr!r}")
with open(own, "rb") as f:
    content = f.read()
check(content == b"program output\n", f"the program's file holds {len(content)} bytes: {content[:80]!r}")
check(len(traces(trace_dir)) == 1, f"traces: {traces(trace_dir)}")
proc = report_json(trace_dir)["processes"][0]
# 3 + 4 all-reduce calls and the communicator's creation and destruction.
check(proc["whole"] and proc["end_reason"] == "exit", f"trace: {proc}")
check(proc["nccl_events"] >= 7, f"calls after the descriptors were closed are missing: {proc}")
print(f"ok: the program's file is its own ({len(content)} bytes); trace whole, "
      f"{proc['nccl_events']} NCCL events")
