#!/usr/bin/env bash
# What recording device memory costs the light default: the Llama step
# (bench/workloads/llama_step.py, 20 timed steps, median step) with no profiler, under the
# light capture without the MEMORY2 kind (VPROF_CUPTI_KINDS listing the rest of the light
# plan), and under the light default (MEMORY2 included); fresh processes, interleaved, ROUNDS
# rounds (default 5). Prints one line per run.
# Usage: bench/device_memory_overhead.sh LIB [ROUNDS]
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
rounds="${2:-5}"
without="CONCURRENT_KERNEL,MEMCPY,MEMCPY2,MEMSET,EXTERNAL_CORRELATION,OVERHEAD,DEVICE,SELECTED_API"
for round in $(seq "$rounds"); do
  for mode in bare no_memory light; do
    pre="" kinds=""
    [[ $mode != bare ]] && pre="$lib"
    [[ $mode == no_memory ]] && kinds="$without"
    v=$(LD_PRELOAD="$pre" VPROF_CUPTI_KINDS="$kinds" VPROF_OUTPUT_DIR="/tmp/mo-$mode" \
        python3 bench/workloads/llama_step.py --steps 20 2>/dev/null | awk '/llama_step_ms/ {print $2}')
    echo "round $round $mode llama_step_ms $v"
  done
done
