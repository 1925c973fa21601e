"""Signals and `vprof run`: SIGTERM and SIGINT sent to vprof reach the command
(its exit status comes back), and a rank killed with SIGKILL leaves a whole
trace up to its last flush, which the report names as ended unobserved."""
import json
import os
import signal
import subprocess
import sys
import time

from harness import base_env, check, temp_dir
from launch_harness import (SIM_LAUNCH, VPROF, manifest, report_of, sim_env, sim_train_args,
                            vprof)

# A child that exits with a code of its own when the signal reaches it.
WAITER = ("import signal, sys, time\n"
          "signal.signal(signal.SIGTERM, lambda *a: sys.exit(42))\n"
          "signal.signal(signal.SIGINT, lambda *a: sys.exit(43))\n"
          "print('ready', flush=True)\n"
          "time.sleep(60)\n")

for sig, want in ((signal.SIGTERM, 42), (signal.SIGINT, 43)):
    out = temp_dir("signal")
    p = subprocess.Popen([VPROF, "run", "--output", out, "--", sys.executable, "-c", WAITER],
                         env=base_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "ready", "the child did not start")
    p.send_signal(sig)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        check(False, f"{sig.name} was not passed on")
    check(p.returncode == want, f"{sig.name}: exit {p.returncode}, expected {want}: "
          f"{p.stderr.read()}")
    check(manifest(out)["exit_status"] == want, "manifest exit status")


def pid_of_rank(rank, folder):
    """The sim_train process of `rank` writing into `folder`, from /proc."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if b"sim_train" in cmdline and f"RANK={rank}".encode() in environ and \
                f"VPROF_OUTPUT_DIR={folder}".encode() in environ:
            return int(entry)
    return None


# SIGKILL one rank of a long job once its trace holds flushed events.
KILLED = 2
folder, logs = os.path.join(temp_dir("kill"), "job"), temp_dir("kill-logs")
p = subprocess.Popen([VPROF, "run", "--flush-ms", "20", "--report", "--report-format", "json",
                      "--output", folder, "--", SIM_LAUNCH, "-n", "4"] +
                     sim_train_args(2000, logs), env=sim_env(), stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
deadline = time.time() + 30
pid = None
while time.time() < deadline:
    pid = pid or pid_of_rank(KILLED, folder)
    trace = pid and [f for f in os.listdir(folder) if f.endswith(f".{pid}.vtrace")]
    # Beyond the ~20 KB that vprof's launch-cost calibration writes as CUDA starts.
    if trace and os.path.getsize(os.path.join(folder, trace[0])) > 65536:
        break
    time.sleep(0.05)
check(pid is not None, "rank 2 never started writing")
os.kill(pid, signal.SIGKILL)
out, err = p.communicate(timeout=120)
# sim_launch ends the other ranks and reports the first failure: rank 2's 128+9.
check(p.returncode == 137, f"exit {p.returncode}, expected 137: {err}")

rep = report_of(folder)
victim = next(q for q in rep["processes"] if q["pid"] == pid)
check(victim["rank"] == KILLED and victim["state"] == "whole" and
      victim["end_reason"] == "unobserved" and "ended unobserved" in victim["problem"],
      f"the killed rank: {victim}")
check(victim["nccl_events"] > 0, "nothing flushed before the kill was read")
with open(os.path.join(folder, "report.json")) as f:
    check(json.load(f)["all_inputs_whole"], "--report's report finds a trace not whole")
check(manifest(folder)["report_exit_status"] == 0, "report status of whole traces is 0")
r = vprof(["report", folder])
check(r.returncode == 0 and "ended unobserved" in r.stdout, r.stdout[-2000:] + r.stderr)
print(f"ok: SIGTERM/SIGINT passed on; rank {KILLED} killed after {victim['nccl_events']} events, "
      "reported ended unobserved")
