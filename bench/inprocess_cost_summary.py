"""bench/device_inprocess_cost.sh's lines (stdin) summed up: per workload and plan, the median
over rounds of what the plan added to a step (inside the windows against outside, in one
process), the light plan's points above kernel records only (paired by round), and the light
plan's own stated cost per step (least to most) against what it added. Every round is printed
too."""
import collections
import statistics
import sys

added = collections.defaultdict(lambda: collections.defaultdict(dict))  # workload plan round
stated = collections.defaultdict(dict)  # workload round: (least, most, measured), light only
rows = collections.defaultdict(list)
for line in sys.stdin:
    parts = line.split()
    if len(parts) < 5 or parts[0] != "round" or parts[4] == "failed":
        continue
    rnd, workload, plan = int(parts[1]), parts[2], parts[3]
    inside, outside = int(parts[4]), int(parts[5])
    added[workload][plan][rnd] = (inside - outside) / outside
    rows[(workload, plan)].append(f"{inside / 1e6:.2f}/{outside / 1e6:.2f}")
    if plan == "light" and parts[6] != "-" and parts[7] != "-":
        stated[workload][rnd] = (int(parts[6]), int(parts[7]), inside - outside)


def pct(x):
    return f"{100 * x:+.1f}%"


print("| workload | plan | rounds | added per step, median | rounds' range |")
print("|---|---|---|---|---|")
for workload, plans in added.items():
    for plan, by_round in plans.items():
        v = list(by_round.values())
        print(f"| {workload} | {plan} | {len(v)} | {pct(statistics.median(v))} | "
              f"{pct(min(v))} to {pct(max(v))} |")
print()
for workload, plans in added.items():
    if "light" in plans and "kernels" in plans:
        paired = [plans["light"][r] - plans["kernels"][r]
                  for r in plans["light"] if r in plans["kernels"]]
        if paired:
            print(f"{workload}: light minus kernel records only, paired by round: median "
                  f"{100 * statistics.median(paired):+.1f} points ("
                  + " ".join(f"{100 * p:+.1f}" for p in paired) + ")")
for workload, by_round in stated.items():
    ratios = []
    for least, most, measured in by_round.values():
        if measured > 0:
            ratios.append((least / measured, most / measured))
    if ratios:
        print(f"{workload}: light's stated cost per step over the added time, least and most: "
              + " ".join(f"{lo:.2f}-{hi:.2f}" for lo, hi in ratios)
              + f"; median least {statistics.median(r[0] for r in ratios):.2f}, "
              f"most {statistics.median(r[1] for r in ratios):.2f}")
print()
for (workload, plan), values in rows.items():
    print(f"{workload} {plan} (inside/outside ms): " + " ".join(values))
