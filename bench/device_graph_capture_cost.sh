#!/usr/bin/env bash
# What reading a CUDA graph's node list costs: the light default reads it once, as the graph is
# instantiated (CUPTI's GRAPHEXEC_CREATED callback). bench/workloads/graph_step.py times the
# capture of its whole training step and the instantiation that ends it (graph_capture_ms);
# ROUNDS rounds of fresh processes, bare and under vprof interleaved in each, every run printed,
# then the medians. Usage: bench/device_graph_capture_cost.sh LIB [ROUNDS]
set -uo pipefail
lib="$(realpath "$1")"
rounds="${2:-5}"
declare -A runs
for round in $(seq 1 "$rounds"); do
  for mode in bare light; do
    preload=()
    [ "$mode" = light ] && preload=(LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/gcc-light)
    rm -rf /tmp/gcc-light
    line=$(env "${preload[@]}" timeout 300 python3 bench/workloads/graph_step.py --replays 20 \
           2>/tmp/gcc.err | grep -E '^graph_(capture|step)_ms' | tr '\n' ' ')
    echo "round $round $mode: ${line:-failed: $(tail -1 /tmp/gcc.err)}"
    runs[$mode]+="$(echo "$line" | sed -n 's/.*graph_capture_ms \([0-9.]*\).*/\1/p') "
  done
done
for mode in bare light; do
  echo "$mode median graph_capture_ms: $(echo ${runs[$mode]} | tr ' ' '\n' | sort -g |
    awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')"
done
