"""vprof installs no signal handler, so a program's signal handling is its
own: Python keeps its SIGINT handler (KeyboardInterrupt, `finally` blocks),
multiprocessing works with every start method, and the handler table reads
the same with and without vprof. A process that a signal kills (SIGTERM with
no handler, SIGKILL) still leaves a whole trace, up to its last flush."""
import os
import signal
import subprocess
import sys
import time

from harness import (BUILD, LIBVPROF, VPROF, base_env, check, report_json, run, temp_dir,
                     traces)

PROGRAM = os.path.join(BUILD, "tests", "integration", "nccl_single_rank")
trace_dir = temp_dir("signals")
env = base_env(VPROF_OUTPUT_DIR=trace_dir)

# Every signal's disposition as Python sees it at start.
HANDLERS = """
import signal
for s in sorted(signal.valid_signals()):
    try:
        print(int(s), signal.getsignal(s))
    except (OSError, ValueError):
        pass
"""
bare = run([sys.executable, "-c", HANDLERS], env=env)
traced = run([sys.executable, "-c", HANDLERS], preload=[LIBVPROF], env=env)
check(bare.returncode == 0 and traced.returncode == 0, f"{bare.stderr} {traced.stderr}")
check("default_int_handler" in bare.stdout, f"no SIGINT handler seen without vprof: {bare.stdout}")
check(bare.stdout == traced.stdout,
      f"handler table differs under vprof:\n{bare.stdout}\n---\n{traced.stdout}")

# Ctrl-C: KeyboardInterrupt reaches the program, its finally block runs, and
# Python ends as it does on an unhandled KeyboardInterrupt (by SIGINT).
INTERRUPTED = """
import sys, time
try:
    print("ready", flush=True)
    time.sleep(30)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    raise
finally:
    print("finally ran", flush=True)
"""


def interrupt(preload):
    e = dict(env)
    if preload:
        e["LD_PRELOAD"] = LIBVPROF
    p = subprocess.Popen([sys.executable, "-c", INTERRUPTED], env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    check(p.stdout.readline() == "ready\n", "the program did not start")
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    return p.returncode, out


bare_rc, bare_out = interrupt(False)
traced_rc, traced_out = interrupt(True)
check(bare_out == "KeyboardInterrupt\nfinally ran\n", f"bare: {bare_out!r}")
check((traced_rc, traced_out) == (bare_rc, bare_out),
      f"under vprof exit {traced_rc} {traced_out!r}, without {bare_rc} {bare_out!r}")

# multiprocessing, each start method (forkserver is Python 3.14's default).
POOL = """
import multiprocessing as mp, sys
def square(x):
    return x * x
if __name__ == "__main__":
    with mp.get_context(sys.argv[1]).Pool(2) as pool:
        print(sum(pool.map(square, range(10))))
"""
script = os.path.join(temp_dir("signals-pool"), "pool.py")
with open(script, "w") as f:
    f.write(POOL)
for method in ("fork", "spawn", "forkserver"):
    r = run([sys.executable, script, method], preload=[LIBVPROF], env=env, timeout=60)
    check(r.returncode == 0 and r.stdout == "285\n",
          f"multiprocessing {method} under vprof: exit {r.returncode} {r.stdout!r} {r.stderr!r}")


def killed_by(sig):
    """Runs a rank that records NCCL calls and then sleeps; kills it with sig."""
    out = temp_dir("signals-killed")
    e = base_env(VPROF_OUTPUT_DIR=out, VPROF_FLUSH_MS=50, LD_PRELOAD=LIBVPROF)
    p = subprocess.Popen([PROGRAM, "3", "30"], env=e, stdout=subprocess.DEVNULL)
    deadline = time.time() + 10
    while not traces(out) and time.time() < deadline:
        time.sleep(0.02)  # the first flush after the calls creates the file
    check(traces(out), "no trace file appeared")
    time.sleep(0.2)  # a few more flushes
    p.send_signal(sig)
    p.wait(10)
    check(p.returncode == -sig, f"exit {p.returncode}, expected death by signal {sig}")
    # Whole up to the last flush: the calls, the clock samples, the provisional Footer.
    proc = report_json(out)["processes"][0]
    check(proc["whole"] and proc["end_reason"] == "unobserved",
          f"trace of a process killed by {sig}: {proc}")
    check(proc["nccl_events"] >= 4 and proc["clock_samples"] >= 2, f"records missing: {proc}")
    return proc


term = killed_by(signal.SIGTERM)
kill = killed_by(signal.SIGKILL)
print(f"ok: handler table unchanged, KeyboardInterrupt and finally run, multiprocessing "
      f"fork/spawn/forkserver; SIGTERM and SIGKILL leave whole traces "
      f"({term['clock_samples']} and {kill['clock_samples']} clock samples)")
