"""How long the program's own CUDA API calls took under capture, against the launch-cost
calibration's bare launch: an upper bound of what recording added to the launches, beside the
calibration's lower bound. Reads `vprof export DIR --format chrome`'s JSON
(argv[1]) and `vprof report DIR --format json` (argv[2]); argv[3], argv[4]: workload and round.
Prints, per API name, calls and mean duration (the five with most total time), then
  upper R <workload> <mean launch ns> <bare launch ns> <launches per step> <upper ms per step>
where a launch is the runtime's cudaLaunchKernel family (the driver call inside it is the same
launch), and a step is an NVTX step of the report's first rank."""
import json
import sys
from collections import defaultdict

chrome_path, report_path, workload, round_ = sys.argv[1:5]
with open(chrome_path) as f:
    chrome = json.load(f)
events = chrome["traceEvents"] if isinstance(chrome, dict) else chrome
with open(report_path) as f:
    report = json.load(f)

calls = defaultdict(lambda: [0, 0.0])  # name -> [count, total µs]
for event in events:
    if event.get("ph") == "X" and event.get("cat") in ("cuda_runtime", "cuda_driver"):
        calls[event["name"]][0] += 1
        calls[event["name"]][1] += event.get("dur", 0.0)
for name, (count, total) in sorted(calls.items(), key=lambda kv: -kv[1][1])[:5]:
    print(f"api {round_} {workload} {name} calls {count} mean_us {total / count:.2f}")

launch = [(c, t) for name, (c, t) in calls.items()
          if name.startswith("cudaLaunchKernel") or name.startswith("cudaLaunchCooperative")]
count = sum(c for c, _ in launch)
mean_ns = 1000 * sum(t for _, t in launch) / count if count else 0
cost = next((p["gpu"]["capture"]["launch_cost"] for p in report["processes"]
             if (p["gpu"].get("capture") or {}).get("launch_cost")), None)
ranks = [r for r in (report.get("steps") or {}).get("ranks", []) if r.get("launch_cost")]
if not cost or not ranks or not count:
    print(f"upper {round_} {workload} unavailable")
    sys.exit()
per_step = ranks[0]["launch_cost"]["launches"] / ranks[0]["launch_cost"]["steps"]
upper_ms = per_step * max(0.0, mean_ns - cost["bare_launch_ns"]) / 1e6
print(f"upper {round_} {workload} {mean_ns:.0f} {cost['bare_launch_ns']} {per_step:.1f} "
      f"{upper_ms:.4f}")
