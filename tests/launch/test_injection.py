"""CUDA_INJECTION64_PATH: the fake runtime loads the library it names once, at
CUDA's initialisation, and carries on when it cannot; and a child whose
launcher replaces LD_PRELOAD (vime's train actors in colocate mode) is still
profiled through it under `vprof run`."""
import os

from harness import LIBVPROF, STANDINS, base_env, check, report_json, run, temp_dir, traces
from launch_harness import LAUNCH_BUILD, vprof

CHILD = os.path.join(LAUNCH_BUILD, "cuda_child")
LAUNCHER = os.path.join(LAUNCH_BUILD, "replacing_launcher")
PROBE = os.path.join(LAUNCH_BUILD, "libinjection_probe.so")

# Loaded at the first call that initialises CUDA, not before, and once.
r = run([CHILD], env=base_env(CUDA_INJECTION64_PATH=PROBE))
check(r.returncode == 0, r.stderr)
lines = r.stdout.splitlines()
check(lines[:2] == ["runtime version read", "InitializeInjection called"] and
      lines.count("InitializeInjection called") == 1, f"order: {lines}")

# A library that cannot be loaded, or has no InitializeInjection: one line, and
# the program runs on (as the real driver does, which says nothing).
for bad in ("/nonexistent/libinject.so", os.path.join(STANDINS, "libnccl.so.2")):
    r = run([CHILD], env=base_env(CUDA_INJECTION64_PATH=bad))
    check(r.returncode == 0 and "pid=" in r.stdout, f"{bad}: {r.returncode} {r.stderr}")
    said = [l for l in r.stderr.splitlines() if "CUDA_INJECTION64_PATH" in l]
    check(len(said) == 1 and "continuing without it" in said[0], f"{bad}: {r.stderr}")

# Under vprof run, the launcher's child gets LD_PRELOAD="" and still leaves a
# whole trace: libvprof arrives through CUDA_INJECTION64_PATH.
folder = os.path.join(temp_dir("inject"), "run")
r = vprof(["run", "--output", folder, "--", LAUNCHER, "", CHILD])
check(r.returncode == 0, f"{r.returncode} {r.stderr}")
fields = dict(kv.split("=", 1) for kv in r.stdout.splitlines()[-1].split())
check(fields["preload"] == "", f"the child still had LD_PRELOAD={fields['preload']}")
rep = report_json(folder)
by_pid = {p["pid"]: p for p in rep["processes"]}
child = by_pid.get(int(fields["pid"]))
check(child is not None, f"no trace of the child {fields['pid']}: {sorted(by_pid)}")
check(child["state"] == "whole" and child["end_reason"] == "exit", f"child trace {child}")
check(len(traces(folder)) == 2, f"expected the launcher's and the child's traces: {traces(folder)}")

# The control: the same child, LD_PRELOAD replaced, no injection variable: no trace.
# (VPROF_GPU=0 keeps the preloaded launcher from setting CUDA_INJECTION64_PATH itself.)
control = temp_dir("inject-control")
r = run([LAUNCHER, "", CHILD],
        env=base_env(LD_PRELOAD=LIBVPROF, VPROF_OUTPUT_DIR=control, VPROF_GPU=0))
check(r.returncode == 0, r.stderr)
check(len(traces(control)) == 1, f"without injection only the launcher is traced: {traces(control)}")
print("ok: injection loads once at CUDA init, survives a bad path, and profiles a child whose "
      "LD_PRELOAD was replaced")
