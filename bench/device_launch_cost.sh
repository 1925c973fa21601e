#!/usr/bin/env bash
# vprof's stated launch cost against its measured cost, on one GPU. Each
# round runs every workload bare and under the light default, fresh processes, interleaved, and
# prints
#   round R <workload> <bare|light> <ms>
# then reports each light run's trace and prints what it states:
#   estimate R <workload> <added ns per launch> <launches per unit> <estimated ms per unit> ...
# (bench/launch_cost_estimate.py says how), and bench/launch_cost_figures.py puts the estimate
# beside light − bare.
# Usage: bench/device_launch_cost.sh LIB VPROF ROUNDS
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="$3"
args_of() {
  case $1 in
    llama_step) echo "--nvtx" ;;
    *) echo "" ;;
  esac
}
for round in $(seq 1 "$rounds"); do
  for workload in llama_step launch_loop graph_step; do
    for mode in bare light; do
      out=/tmp/lc-$workload-$mode-$round
      rm -rf "$out"
      pre=""
      [ "$mode" = light ] && pre="$lib"
      v=$(LD_PRELOAD="$pre" VPROF_OUTPUT_DIR="$out" timeout 240 \
            python3 "bench/workloads/$workload.py" $(args_of "$workload") 2>/dev/null |
            awk '/_ms / {print $2}')
      echo "round $round $workload $mode ${v:-failed}"
    done
  done
done
for round in $(seq 1 "$rounds"); do
  for workload in llama_step launch_loop graph_step; do
    "$vprof" report "/tmp/lc-$workload-light-$round" --format json 2>/dev/null |
      python3 bench/launch_cost_estimate.py "$workload" "$round"
  done
done
