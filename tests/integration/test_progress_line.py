"""vprof report's progress line: drawn on standard error when it is a terminal
(a pseudo-terminal here) and the reading takes over a second, redrawn in place
and erased before the report; absent on a pipe and under --quiet, with the
same report on standard output every time."""
import os
import pty
import shutil
import subprocess
import time

from harness import BUILD, VPROF, check, temp_dir

GENERATE = os.path.join(BUILD, "bench", "gen_scale_traces")
RANKS = 128  # 128 x 50,000 records: about 4 s of reading on the 2-core CI machine


def report_on_pty(traces, *extra):
    """Runs the report with standard error on a pseudo-terminal; (status, seconds, stdout,
    everything written to the terminal). Standard output goes to a file: a pipe left unread
    while the terminal is read would fill and stop the report."""
    controller, terminal = pty.openpty()
    start = time.monotonic()
    out_file = os.path.join(os.path.dirname(traces), "report.json")
    with open(out_file, "wb") as stdout:
        proc = subprocess.Popen([VPROF, "report", "--format", "json", *extra, traces],
                                stdout=stdout, stderr=terminal)
    os.close(terminal)
    screen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal's last writer closed it
            break
        if not chunk:
            break
        screen += chunk
    status = proc.wait()
    os.close(controller)
    with open(out_file, "rb") as written:
        out = written.read()
    return status, time.monotonic() - start, out, screen


def main():
    work = temp_dir("progress")
    traces = os.path.join(work, "traces")
    subprocess.run([GENERATE, "--ranks", str(RANKS), "--events-per-rank", "50000", traces],
                   check=True, capture_output=True)

    status, seconds, out, screen = report_on_pty(traces)
    check(status == 0, f"report on a terminal exit {status}: {screen!r}")
    check(seconds > 1.5, f"the report took {seconds:.1f} s: too little to test a line drawn "
                         "after a second; make the input larger")
    check(f"\rvprof: reading {RANKS} traces: ".encode() in screen,
          f"no progress line on the terminal: {screen[:300]!r}")
    check(b" left\x1b[K" in screen, f"no time left: {screen[:300]!r}")
    check(b"; analyzing\x1b[K" in screen, f"no analyzing line: {screen!r}")
    # Erased before the report: the last thing on the terminal clears the line.
    check(screen.endswith(b"\r\x1b[K"), f"the line was not erased: {screen[-200:]!r}")

    piped = subprocess.run([VPROF, "report", "--format", "json", traces], capture_output=True,
                           timeout=120)
    check(piped.returncode == 0, f"piped report exit {piped.returncode}")
    check(b"vprof: reading" not in piped.stderr and b"\x1b" not in piped.stderr,
          f"a progress line on a pipe: {piped.stderr[:300]!r}")
    check(piped.stdout == out, "the report differs with and without the progress line")

    status, _, quiet_out, quiet_screen = report_on_pty(traces, "--quiet")
    check(status == 0, f"--quiet report exit {status}")
    check(quiet_screen == b"", f"--quiet printed on the terminal: {quiet_screen[:300]!r}")
    check(quiet_out == out, "--quiet changed the report")
    shutil.rmtree(work)
    print("progress line: drawn on a terminal after a second, erased; none on a pipe or --quiet")


if __name__ == "__main__":
    main()
