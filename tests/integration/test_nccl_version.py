"""The NCCL version of a program that loads NCCL late. The RunHeader asks for it once, as the
trace begins (vprof's first flush); a Python program loads libnccl with `import torch`, which
may come before or after that flush, so two runs of one program recorded it in one run and not
the other. late_nccl loads the stand-in NCCL (which reports NCCL_VERSION_CODE) at start in one
run and well after the first flush in the other: the header of the late run has no version, its
communicator has it, and `vprof diff --bitwise` finds the same settings in both runs, none of
them recorded in one run only."""
import json
import os
import subprocess

from harness import BUILD, LIBVPROF, VPROF, base_env, check, run, temp_dir, traces

PROGRAMS = os.path.join(BUILD, "tests", "integration")
LATE_NCCL = os.path.join(PROGRAMS, "late_nccl")
DUMP = os.path.join(PROGRAMS, "trace_dump")
VERSION_CODE = 22809  # the NCCL of the build's nccl.h, 2.28.9, which the stand-in reports


def late_nccl(delay_ms):
    trace_dir = temp_dir("nccl-version")
    # A first flush at 10 ms: a delay of 0 loads NCCL before it, 600 ms long after it.
    env = base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_GPU=0, VPROF_AUDIT="fingerprint",
                   VPROF_FLUSH_MS=10)
    r = run([LATE_NCCL, str(delay_ms)], preload=[LIBVPROF], env=env)
    check(r.returncode == 0, f"late_nccl {delay_ms} failed ({r.returncode}): {r.stderr}")
    files = traces(trace_dir)
    check(len(files) == 1, f"expected one trace, got {files}")
    d = subprocess.run([DUMP, os.path.join(trace_dir, files[0])], capture_output=True, text=True,
                       timeout=60)
    check(d.returncode == 0, f"trace_dump: {d.stderr}")
    rows = [json.loads(line) for line in d.stdout.splitlines()]
    header = next(x for x in rows if x["kind"] == "header")
    comms = [x for x in rows if x["kind"] == "communicator"]
    check(len(comms) == 1, f"late_nccl {delay_ms}: communicators {comms}")
    return trace_dir, header["nccl_version"], comms[0]["nccl_version"]


early, early_header, early_comm = late_nccl(0)
check(early_header == VERSION_CODE and early_comm == VERSION_CODE,
      f"NCCL loaded at start: header {early_header}, communicator {early_comm}")
late, late_header, late_comm = late_nccl(600)
# The cause: the header was written before NCCL was loaded.
check(late_header == 0, f"NCCL loaded after the first flush: header {late_header}")
check(late_comm == VERSION_CODE, f"NCCL loaded after the first flush: communicator {late_comm}")
print(f"NCCL loaded late: header {late_header}, communicator {late_comm}")

r = subprocess.run([VPROF, "diff", "--bitwise", early, late, "--format", "json"],
                   capture_output=True, text=True, timeout=60)
check(r.returncode == 0, f"diff --bitwise: {r.returncode} {r.stderr}")
d = json.loads(r.stdout)
check(d["identical"], f"the same program twice: {d}")
check(d["settings_differing"] == [] and d["settings_recorded_once"] == [],
      f"settings: {d['settings_differing']} {d['settings_recorded_once']}")
print("vprof diff --bitwise early late: the same settings, none recorded in one run only")
