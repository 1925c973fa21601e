"""bench/device_launch_cost.sh's lines (stdin) summed up: per workload, the medians of the bare
and light runs, their difference (vprof's measured cost per unit), the median of the light
runs' stated estimates, and the estimate's ratio to the measured cost (the issue's target: within
a factor of 2). Every round's values are printed too."""
import collections
import statistics
import sys

runs = collections.defaultdict(lambda: collections.defaultdict(list))
estimates = collections.defaultdict(list)
per_launch = collections.defaultdict(list)
for line in sys.stdin:
    parts = line.split()
    if len(parts) == 5 and parts[0] == "round" and parts[4] != "failed":
        runs[parts[2]][parts[3]].append(float(parts[4]))
    elif len(parts) >= 6 and parts[0] == "estimate" and parts[3] != "failed":
        per_launch[parts[2]].append(int(parts[3]))
        estimates[parts[2]].append(float(parts[5]))

print("| workload | bare (ms) | light (ms) | measured cost (light − bare) | stated estimate "
      "(median) | estimate / measured |")
print("|---|---|---|---|---|---|")
for workload, by_mode in runs.items():
    if not by_mode.get("bare") or not by_mode.get("light") or not estimates[workload]:
        continue
    bare = statistics.median(by_mode["bare"])
    light = statistics.median(by_mode["light"])
    measured = light - bare
    estimate = statistics.median(estimates[workload])
    ratio = f"{estimate / measured:.2f}" if measured > 0 else "– (no measured cost)"
    print(f"| {workload} | {bare:.3f} | {light:.3f} | {measured:.3f} ms | {estimate:.3f} ms | "
          f"{ratio} |")
print()
for workload, by_mode in runs.items():
    for mode, values in by_mode.items():
        print(f"{workload} {mode}: " + " ".join(f"{v:.3f}" for v in values))
    print(f"{workload} added ns per launch: " + " ".join(str(v) for v in per_launch[workload]))
    print(f"{workload} estimate ms: " + " ".join(f"{v:.4f}" for v in estimates[workload]))
