#!/usr/bin/env bash
# What a capture plan costs a program, measured inside the program: under VPROF_DEEP=0.5/1 the
# plan records only inside half-second windows, and the report compares the program's own NVTX
# steps inside the windows with those outside (its Deep capture line). Steps of one process,
# interleaved every half second, so the machine's state is the same on both sides; the bare
# rounds of bench/device_capture_modes.sh spread by x1.5 between processes on the H200. Outside
# the windows CUPTI stays attached, and since 57b038e the plan's selected API records stay on
# there too (switching them crashed CUPTI): with a library from 57b038e on, this measures the
# plan's kinds over that state; before it (bench/RESULTS.md, 2026-12-04 (a36dbc4), call 1), the
# whole plan over CUPTI attached with nothing enabled.
# Fresh processes, plans interleaved within each round; every run printed as
#   round R <workload> <plan> <inside ns> <outside ns> <stated least ns> <stated most ns>
# where the stated figures are the report's own estimate of vprof's cost per step (its launch
# cost). Summarise with bench/inprocess_cost_summary.py.
# Usage: bench/device_inprocess_cost.sh LIB VPROF ROUNDS
# PLANS="light kernels" picks and orders the plans: light (the default) or any
# VPROF_CUPTI_KINDS list; kernels stands for CONCURRENT_KERNEL (kernel records only).
# LLAMA_STEPS (300) and LOOP_REPS (300) size the two workloads.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="$3"
figures() {  # REPORT.json: inside outside least most of the first process with deep figures
  python3 - "$1" <<'PY'
import json, sys
def find(node, key):
    if isinstance(node, dict):
        if isinstance(node.get(key), dict):
            yield node
        for v in node.values():
            yield from find(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from find(v, key)
try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("failed")
    sys.exit()
for rank in find(report, "deep_capture"):
    deep, cost = rank["deep_capture"], rank.get("launch_cost") or {}
    if deep.get("deep_median_step_ns") and deep.get("shallow_median_step_ns"):
        print(deep["deep_median_step_ns"], deep["shallow_median_step_ns"],
              cost.get("per_step_ns") or "-", cost.get("upper_per_step_ns") or "-")
        break
else:
    print("failed")
PY
}
for round in $(seq 1 "$rounds"); do
  for workload in llama_step launch_loop; do
    for plan in ${PLANS:-light kernels}; do
      kinds=$plan
      [[ $plan == kernels ]] && kinds=CONCURRENT_KERNEL
      case $workload in
        llama_step) args=(--nvtx --steps "${LLAMA_STEPS:-300}") ;;
        launch_loop) args=(--nvtx --reps "${LOOP_REPS:-300}") ;;
      esac
      dir=/tmp/ip-$workload-$plan
      rm -rf "$dir"
      env VPROF_DEEP=0.5/1 VPROF_CUPTI_KINDS="$kinds" LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" \
        python3 "bench/workloads/$workload.py" "${args[@]}" >/dev/null 2>&1
      "$vprof" report "$dir" --format json >"$dir.json" 2>/dev/null
      echo "round $round $workload $plan $(figures "$dir.json")"
    done
  done
done
