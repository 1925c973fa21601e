#!/usr/bin/env bash
# What each CUPTI activity kind costs on a launch-bound loop (device tool,
# one H200): bench/workloads/launch_loop.py bare and under vprof with
# growing VPROF_CUPTI_KINDS sets, 3 interleaved rounds of fresh processes.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
declare -A sets=(
  [k]="CONCURRENT_KERNEL"
  [k_rt]="CONCURRENT_KERNEL,RUNTIME"
  [k_rt_drv]="CONCURRENT_KERNEL,RUNTIME,DRIVER"
  [k_ev_sync]="CONCURRENT_KERNEL,CUDA_EVENT,SYNCHRONIZATION,MEMCPY,MEMSET,EXTERNAL_CORRELATION,OVERHEAD"
  [all]=""
)
for round in 1 2 3; do
  v=$(python3 bench/workloads/launch_loop.py | awk '{print $2}')
  echo "round $round bare launch_loop_ms $v"
  for name in k k_rt k_rt_drv k_ev_sync all; do
    v=$(LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/kinds-$name VPROF_CUPTI_KINDS="${sets[$name]}" \
        python3 bench/workloads/launch_loop.py | awk '{print $2}')
    echo "round $round $name launch_loop_ms $v"
  done
done
