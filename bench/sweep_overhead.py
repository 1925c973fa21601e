"""Per-mode cost of vprof on small collectives, from device_nccl_plugin.sh's
overhead runs (ov<round>-<mode>.jsonl in DIR). Each point is one (op, size):
the mean GPU time per call the workload measured. A mode's figure is the sum
over points of the point's fastest round (single slow calls, a first-run
hiccup, land in one round and would swamp a sum of means), against bare's.
Rounds ran interleaved, so compare only within one run.

    python3 bench/sweep_overhead.py DIR
"""
import glob
import json
import os
import re
import sys


def main():
    runs = {}  # mode -> [ {(op, bytes): mean_us} per round ]
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "ov*-*.jsonl"))):
        mode = re.fullmatch(r"ov\d+-(\w+)\.jsonl", os.path.basename(path)).group(1)
        runs.setdefault(mode, []).append(
            {(p["op"], p["bytes"]): p["mean_us"] for p in map(json.loads, open(path))})
    points = sorted(runs["bare"][0])
    best = {mode: sum(min(r[k] for r in rounds) for k in points) for mode, rounds in runs.items()}
    for mode, total in best.items():
        print(f"{mode:9} {len(points)} points, {len(runs[mode])} rounds: {total:.1f} µs "
              f"({(total / best['bare'] - 1) * 100:+.1f}% against bare)")


if __name__ == "__main__":
    main()
