"""vprof report --jobs N: the traces read on N threads (ReadAhead) and the kept steps replayed on
N threads (StepReplays) give the same report, byte for byte, whatever N: the scale benchmark's
generated traces of 48 ranks, reported with 1, 2, 4 and 7 threads in JSON, text and Markdown.
A bad N is a usage error naming the option."""
import json
import os
import subprocess

from harness import BUILD, VPROF, check, temp_dir

GENERATE = os.path.join(BUILD, "bench", "gen_scale_traces")

traces = os.path.join(temp_dir("report-jobs"), "run")
subprocess.run([GENERATE, "--ranks", "48", "--events-per-rank", "4000", traces], check=True,
               capture_output=True)


def report(fmt, jobs):
    done = subprocess.run([VPROF, "report", "--format", fmt, "--jobs", str(jobs), traces],
                          capture_output=True, timeout=120)
    check(done.returncode == 0, f"--jobs {jobs} --format {fmt}: exit {done.returncode}: "
          f"{done.stderr.decode(errors='replace')}")
    return done.stdout


for fmt in ("json", "text", "markdown"):
    one = report(fmt, 1)
    for jobs in (2, 4, 7):
        check(report(fmt, jobs) == one, f"--format {fmt}: --jobs {jobs} differs from --jobs 1")

# What the threads share in: every rank read, collectives matched across them, steps replayed.
rep = json.loads(report("json", 4))
check(sum(1 for p in rep["processes"] if p["is_rank"]) == 48, "not every rank was read")
check(rep["steps"]["replay"]["steps"] > 1 and rep["steps"]["replay"]["withheld"] == "",
      f"replay {rep['steps']['replay']}")
check(rep["communicators"] and all(c["ops"] for c in rep["communicators"]),
      "collectives were not matched")

for bad in ("0", "1025", "many"):
    done = subprocess.run([VPROF, "report", "--jobs", bad, traces], capture_output=True)
    err = done.stderr.decode(errors="replace")
    check(done.returncode == 2 and "--jobs" in err, f"--jobs {bad}: exit {done.returncode}: {err}")
print("ok: reports with 1, 2, 4 and 7 threads are the same bytes; bad --jobs refused")
