"""Bad settings and unwritable output: one warning line naming the problem,
no trace, and the program runs exactly as without vprof."""
import os
import sys

from harness import LIBVPROF, base_env, check, run, temp_dir, traces

out = temp_dir("faults")
# A program that ends with exit(), so vprof's exit handler runs (dash ends with
# _exit(), which skips it: then only periodic flushes write).
cmd = [sys.executable, "-c", "print('hello'); raise SystemExit(4)"]
cases = [
    ({"VPROF_FLUSH_MS": "soon"}, "VPROF_FLUSH_MS='soon' is invalid"),
    ({"VPROF_LOG_LEVEL": "chatty"}, "VPROF_LOG_LEVEL='chatty' is invalid"),
    ({"VPROF_OUTPUT_DIR": "/proc/no-such-place"}, "cannot create trace file /proc/no-such-place/"),
]
for settings, message in cases:
    env = base_env(**{"VPROF_OUTPUT_DIR": out, **settings})
    r = run(cmd, preload=[LIBVPROF], env=env)
    check(r.returncode == 4 and r.stdout == "hello\n", f"{settings}: program changed: {r}")
    lines = r.stderr.splitlines()
    check(len(lines) == 1, f"{settings}: expected one warning line, got {lines}")
    check(lines[0].startswith(f"vprof: {lines[0].split()[1]} warning: ") and message in lines[0],
          f"{settings}: warning {lines[0]!r} lacks {message!r}")
check(traces(out) == [], f"traces written despite faults: {traces(out)}")

r = run(cmd, preload=[LIBVPROF], env=base_env(VPROF_OUTPUT_DIR=out, VPROF_ENABLE=0))
check(r.returncode == 4 and r.stderr == "" and traces(out) == [], "VPROF_ENABLE=0 must be silent")
print("ok: bad settings and unwritable folders disable vprof with one warning each")
