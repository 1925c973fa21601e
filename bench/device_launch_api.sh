#!/usr/bin/env bash
# The Llama step's launches under capture against the launch-cost calibration's bare launch:
# each round runs bench/workloads/llama_step.py bare and under the light default, fresh
# processes, interleaved, and prints
#   round R llama_step <bare|light> <ms per step>
# then, for each light run, bench/launch_api_durations.py's lines (the program's API calls with
# most time; the mean recorded launch against the calibration's bare launch: an upper bound of
# what recording added per step) and bench/launch_cost_estimate.py's (the stated lower bound).
# Usage: bench/device_launch_api.sh LIB VPROF ROUNDS
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="$3"
for round in $(seq 1 "$rounds"); do
  for mode in bare light; do
    out=/tmp/la-$mode-$round
    rm -rf "$out"
    pre=""
    [ "$mode" = light ] && pre="$lib"
    v=$(LD_PRELOAD="$pre" VPROF_OUTPUT_DIR="$out" timeout 240 \
          python3 bench/workloads/llama_step.py --nvtx 2>/dev/null | awk '/_ms / {print $2}')
    echo "round $round llama_step $mode ${v:-failed}"
  done
done
for round in $(seq 1 "$rounds"); do
  dir=/tmp/la-light-$round
  "$vprof" report "$dir" --format json --output /tmp/la-report.json 2>/dev/null
  "$vprof" export "$dir" --format chrome -o /tmp/la-chrome.json 2>/dev/null
  python3 bench/launch_api_durations.py /tmp/la-chrome.json /tmp/la-report.json llama_step "$round"
  python3 bench/launch_cost_estimate.py llama_step "$round" < /tmp/la-report.json
done
