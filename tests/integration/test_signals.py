"""SIGTERM ends the trace whole and the process still dies of SIGTERM;
SIGKILL leaves a trace readable up to its last periodic flush. The process
makes a few NCCL calls and then sleeps: until a process records something,
vprof creates no file."""
import os
import signal
import subprocess
import time

from harness import BUILD, LIBVPROF, VPROF, base_env, check, report_json, temp_dir, traces

PROGRAM = os.path.join(BUILD, "tests", "integration", "nccl_single_rank")


def start(trace_dir, flush_ms=50):
    env = base_env(VPROF_OUTPUT_DIR=trace_dir, VPROF_FLUSH_MS=flush_ms, LD_PRELOAD=LIBVPROF)
    p = subprocess.Popen([PROGRAM, "3", "30"], env=env, stdout=subprocess.DEVNULL)
    deadline = time.time() + 10
    while not traces(trace_dir) and time.time() < deadline:
        time.sleep(0.02)  # the first flush after the calls creates the file
    check(traces(trace_dir), "no trace file appeared")
    return p


term_dir = temp_dir("sigterm")
p = start(term_dir)
p.send_signal(signal.SIGTERM)
p.wait(10)
check(p.returncode == -signal.SIGTERM, f"exit {p.returncode}, expected death by SIGTERM")
r = subprocess.run([VPROF, "report", term_dir, "--format", "json"], capture_output=True, text=True)
import json
rep = json.loads(r.stdout) if r.stdout else None
check(rep is not None, f"report failed: {r.stderr}")
proc = rep["processes"][0]
check(proc["whole"] and proc["end_reason"] == "signal" and proc["signal"] == signal.SIGTERM,
      f"SIGTERM trace: {proc}")

kill_dir = temp_dir("sigkill")
p = start(kill_dir)
time.sleep(0.2)
p.send_signal(signal.SIGKILL)
p.wait(10)
r = subprocess.run([VPROF, "report", kill_dir, "--format", "json"], capture_output=True, text=True)
rep = json.loads(r.stdout) if r.stdout else None
check(rep is not None, f"report failed: {r.stderr}")
proc = rep["processes"][0]
check(not proc["whole"] and proc["clock_samples"] >= 2,
      f"SIGKILL trace should be cut but readable: {proc}")
check(r.returncode == 3, f"a cut input must show in the exit code, got {r.returncode}")
print(f"ok: SIGTERM trace whole ({proc['clock_samples']} samples kept after SIGKILL)")
