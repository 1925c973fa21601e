#!/usr/bin/env python3
"""The reporter's scale benchmark: generates synthetic traces
(gen_scale_traces), runs `vprof report --format json --output /dev/null DIR`
on them and prints events, wall and CPU seconds, events per CPU-second and
peak RSS, one line per shape. Targets (the scale issue): at least 5 M events
per CPU-second and at most 1 GiB peak RSS.

  bench/scale/run_scale.py --build build [--work DIR] [--keep]
                           [--repeat N] [--baseline VPROF] [--jobs J,...] [SHAPE ...]

SHAPE is small (8 x 100k), 8x10M, 1024x100k (the default: these three), or
8x1M and 1024x10k (a tenth of the events: memory should not grow with them). The
traces are written under --work (default: a new folder in /tmp) and deleted
afterwards unless --keep; 8x10M needs about 4 GB of disk.

--repeat N runs each shape N times and prints the medians. --baseline VPROF
also runs another vprof binary (an earlier build) on the same traces,
alternating with this one run by run, and prints its medians and the ratios:
a shared machine's speed drifts, so only side-by-side runs compare.

--jobs J,... runs the report with `--jobs J` for each J (default 1), the
values alternating within each repeat, and prints each one's medians and its
wall-time speed-up over the first J (the scale issue's target: at least 0.8 x
J for J = 8 at 1024x100k).
"""
import statistics
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

SHAPES = {  # name: (ranks, events per rank)
    "small": (8, 100_000),
    "8x10M": (8, 10_000_000),
    "1024x100k": (1024, 100_000),
    # A tenth of the events of the two above: peak memory that does not grow
    # with trace length is the same for these as for those.
    "8x1M": (8, 1_000_000),
    "1024x10k": (1024, 10_000),
}
DEFAULT_SHAPES = ["small", "8x10M", "1024x100k"]
TARGET_EVENTS_PER_CPU_S = 5e6
TARGET_PEAK_MIB = 1024


def run_measured(command):
    """Runs command; returns (wall s, user+sys CPU s, peak RSS MiB, exit status)."""
    start = time.monotonic()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as child:
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        stderr = child.stderr.read().decode(errors="replace")
    wall = time.monotonic() - start
    if stderr.strip():
        sys.stderr.write(stderr)
    # ru_maxrss is in KiB on Linux.
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, child.returncode


def generated_events(output):
    for line in output.splitlines():
        key, _, value = line.partition(" ")
        if key == "events":
            return int(value)
    raise RuntimeError("gen_scale_traces printed no event count:\n" + output)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="meson build directory")
    parser.add_argument("--work", help="where to write the traces (default: a new /tmp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated traces")
    parser.add_argument("--repeat", type=int, default=1, help="runs per shape (medians printed)")
    parser.add_argument("--baseline", help="another vprof binary, run alternately for ratios")
    parser.add_argument("--jobs", default="1", help="comma-separated --jobs values to run")
    parser.add_argument("shapes", nargs="*", default=DEFAULT_SHAPES, choices=list(SHAPES))
    args = parser.parse_args()

    generator = os.path.join(args.build, "bench", "gen_scale_traces")
    vprof = os.path.join(args.build, "reporter", "vprof")
    work = args.work or tempfile.mkdtemp(prefix="vprof-scale-")
    print(f"{'shape':<10} {'events':>12} {'gen_s':>7} {'wall_s':>8} {'cpu_s':>8} "
          f"{'Mev/cpu_s':>10} {'peak_MiB':>9} {'exit':>4}  verdict")
    failed = False
    for name in args.shapes:
        ranks, per_rank = SHAPES[name]
        directory = os.path.join(work, name)
        if not os.path.isdir(directory):
            started = time.monotonic()
            output = subprocess.run([generator, "--ranks", str(ranks), "--events-per-rank",
                                     str(per_rank), directory],
                                    check=True, capture_output=True, text=True).stdout
            generation_s = time.monotonic() - started
            with open(os.path.join(directory, "generated.txt"), "w") as record:
                record.write(output)
        else:  # --keep from an earlier run
            generation_s = 0.0
            with open(os.path.join(directory, "generated.txt")) as record:
                output = record.read()
        events = generated_events(output)
        report = ["report", "--format", "json", "--output", "/dev/null", directory]
        jobs = [int(j) for j in args.jobs.split(",")]
        runs_by_jobs, base_runs = {j: [] for j in jobs}, []
        for _ in range(max(1, args.repeat)):
            for j in jobs:
                runs_by_jobs[j].append(run_measured([vprof] + report + ["--jobs", str(j)]))
            if args.baseline:
                base_runs.append(run_measured([args.baseline] + report))
        runs = runs_by_jobs[jobs[0]]
        wall, cpu, peak_mib = (statistics.median(run[i] for run in runs) for i in range(3))
        status = next((run[3] for run in runs if run[3] != 0), 0)
        rate = events / cpu if cpu > 0 else float("inf")
        ok = status == 0 and rate >= TARGET_EVENTS_PER_CPU_S and peak_mib <= TARGET_PEAK_MIB
        failed |= not ok
        print(f"{name:<10} {events:>12,} {generation_s:>7.1f} {wall:>8.2f} {cpu:>8.2f} "
              f"{rate / 1e6:>10.2f} {peak_mib:>9.1f} {status:>4}  "
              f"{'meets targets' if ok else 'MISSES targets'}", flush=True)
        for j in jobs[1:]:
            j_wall, j_cpu, j_peak = (statistics.median(run[i] for run in runs_by_jobs[j])
                                     for i in range(3))
            print(f"{'  --jobs ' + str(j):<10} {'':>12} {'':>7} {j_wall:>8.2f} {j_cpu:>8.2f} "
                  f"{events / j_cpu / 1e6:>10.2f} {j_peak:>9.1f}       "
                  f"wall speed-up x{wall / j_wall:.2f} over --jobs {jobs[0]}"
                  f" (rounds: {' '.join(f'{run[0]:.2f}' for run in runs_by_jobs[j])} s)",
                  flush=True)
        if base_runs:
            base_cpu, base_peak = (statistics.median(run[i] for run in base_runs) for i in (1, 2))
            print(f"{'  baseline':<10} {'':>12} {'':>7} "
                  f"{statistics.median(run[0] for run in base_runs):>8.2f} {base_cpu:>8.2f} "
                  f"{events / base_cpu / 1e6:>10.2f} {base_peak:>9.1f}       "
                  f"speed x{base_cpu / cpu:.2f}, memory x{peak_mib / base_peak:.2f}", flush=True)
        if not args.keep:
            shutil.rmtree(directory)
    if not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
