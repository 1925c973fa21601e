"""Medians and ratios to bare from bench/device_capture_modes.sh's lines (stdin): one row per
workload, one column per mode, with each mode's per-round values so no round is hidden."""
import collections
import statistics
import sys

runs = collections.defaultdict(lambda: collections.defaultdict(list))
modes = []
for line in sys.stdin:
    parts = line.split()
    if len(parts) != 5 or parts[0] != "round" or parts[4] == "failed":
        continue
    _, _, workload, mode, ms = parts
    runs[workload][mode].append(float(ms))
    if mode not in modes:
        modes.append(mode)

print("| workload | " + " | ".join(modes) + " |")
print("|---" * (len(modes) + 1) + "|")
for workload, by_mode in runs.items():
    bare = statistics.median(by_mode["bare"]) if by_mode.get("bare") else None
    cells = []
    for mode in modes:
        values = by_mode.get(mode, [])
        if not values:
            cells.append("–")
            continue
        median = statistics.median(values)
        ratio = f" (×{median / bare:.3f})" if bare else ""
        cells.append(f"{median:.3f} ms{ratio}")
    print(f"| {workload} | " + " | ".join(cells) + " |")
print()
for workload, by_mode in runs.items():
    for mode in modes:
        values = " ".join(f"{v:.3f}" for v in by_mode.get(mode, []))
        print(f"{workload} {mode}: {values}")
