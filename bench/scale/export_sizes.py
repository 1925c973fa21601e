#!/usr/bin/env python3
"""Bytes per event of each `vprof export` format on the scale benchmark's
synthetic traces (gen_scale_traces), and the seconds each export took.

  bench/scale/export_sizes.py --build build [--work DIR] [SHAPE ...]

SHAPE is RANKSxEVENTS, e.g. 8x20000 (default: 8x20000 256x20000 1024x2000).
Events are the records the generator counts (NCCL calls, kernels, copies, API
calls, NVTX ranges). Prints one Markdown table row per shape and format: the
output's bytes, bytes per event, its size against the Chrome JSON's and the
export's wall seconds. The traces and outputs are written under --work
(default: a new folder in /tmp) and deleted shape by shape.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FORMATS = ["chrome", "perfetto", "hta"]


def size_of(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(root, name))
               for root, _, names in os.walk(path) for name in names)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--work")
    parser.add_argument("shapes", nargs="*", default=["8x20000", "256x20000", "1024x2000"])
    args = parser.parse_args()
    vprof = os.path.join(args.build, "reporter", "vprof")
    generate = os.path.join(args.build, "bench", "gen_scale_traces")
    work = args.work or tempfile.mkdtemp(prefix="vprof-export-sizes-")
    print("| shape | events | format | bytes | bytes/event | of chrome | export s |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for shape in args.shapes:
        match = re.fullmatch(r"(\d+)x(\d+)", shape)
        if not match:
            sys.exit(f"export_sizes.py: shape '{shape}' is not RANKSxEVENTS (e.g. 8x20000)")
        traces = os.path.join(work, shape)
        generated = subprocess.run(
            [generate, "--ranks", match.group(1), "--events-per-rank", match.group(2), traces],
            check=True, capture_output=True, text=True).stdout
        events = int(re.search(r"^events (\d+)$", generated, re.M).group(1))
        chrome_bytes = None
        for fmt in FORMATS:
            out = os.path.join(work, f"{shape}.{fmt}")
            start = time.monotonic()
            subprocess.run([vprof, "export", "--format", fmt, "-o", out, traces], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds = time.monotonic() - start
            size = size_of(out)
            chrome_bytes = chrome_bytes or size
            print(f"| {shape} | {events} | {fmt} | {size} | {size / events:.1f} | "
                  f"{size / chrome_bytes:.3f} | {seconds:.1f} |", flush=True)
            shutil.rmtree(out) if os.path.isdir(out) else os.remove(out)
        shutil.rmtree(traces)
    if not args.work:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
