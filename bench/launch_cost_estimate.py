"""What one light run's report (JSON on stdin) states as vprof's own cost per unit of
bench/device_launch_cost.sh's workload (argv: workload, round), printed as
  estimate R <workload> <host ns added per launch> <launches per unit> <ms per unit> \
      host <ms> gpu <ms> (calibration: ...)
A unit is what the workload times: a Llama step (NVTX "train_step": the report's launches per
step), 5,000 launches of the launch loop, one replay of the CUDA-graph step (one graph launch,
whose kernels run back to back: the report's kernels per inferred step times the GPU's added
cost per kernel). Host-bound work pays the host part, a graph replay the GPU part. Where the
report states a range, also
  stated R <workload> least <ms> most <ms> ms per step (...)"""
import json
import sys

workload, round_ = sys.argv[1], sys.argv[2]
report = json.load(sys.stdin)
costs = [p["gpu"]["capture"]["launch_cost"] for p in report["processes"]
         if p["gpu"].get("capture") and p["gpu"]["capture"].get("launch_cost")]
if not costs or costs[0]["failure"]:
    why = costs[0]["failure"] if costs else "no calibration in the trace"
    print(f"estimate {round_} {workload} failed {why}")
    sys.exit()
cost = costs[0]
host_added = max(0, cost["traced_launch_ns"] - cost["bare_launch_ns"])
gpu_added = max(0, cost["traced_kernel_gpu_ns"] - cost["bare_kernel_gpu_ns"])
ranks = [r for r in (report.get("steps") or {}).get("ranks", []) if r.get("launch_cost")]
host_ms = gpu_ms = 0.0
launches = 0.0
if workload == "launch_loop":
    launches = 5000
    host_ms = launches * host_added / 1e6
elif workload == "llama_step" and ranks:
    launches = ranks[0]["launch_cost"]["launches"] / ranks[0]["launch_cost"]["steps"]
    host_ms = launches * host_added / 1e6
elif workload == "graph_step" and ranks:
    launches = 1
    steps = ranks[0]["launch_cost"]["steps"]
    kernels = sum(s["kernels"] for s in ranks[0]["streams"]) / steps
    host_ms = host_added / 1e6
    gpu_ms = kernels * gpu_added / 1e6
# The most the report states (upper_per_step_ns: the program's launch calls as recorded less the
# calibration's bare launch), per step; absent from reports made before it was.
if ranks and ranks[0]["launch_cost"].get("upper_per_step_ns") is not None:
    lc = ranks[0]["launch_cost"]
    print(f"stated {round_} {workload} least {lc['per_step_ns'] / 1e6:.4f} most "
          f"{lc['upper_per_step_ns'] / 1e6:.4f} ms per step (recorded launch call "
          f"{lc['recorded_launch_call_ns']} ns, bare {lc['bare_per_launch_ns']} ns)")
print(f"estimate {round_} {workload} {host_added} {launches:.1f} {host_ms + gpu_ms:.4f} "
      f"host {host_ms:.4f} gpu {gpu_ms:.4f} (calibration: {cost['bare_launch_ns']} ns bare, "
      f"{cost['traced_launch_ns']} ns recorded per launch; {cost['bare_kernel_gpu_ns']} ns bare, "
      f"{cost['traced_kernel_gpu_ns']} ns recorded per kernel on the GPU "
      f"{cost['gpu_failure']})")
