#!/usr/bin/env bash
# Deep windows on a real GPU: the Llama step with an NVTX range per step, under a duty cycle
# and under a trigger, each reported; the report's "Deep capture" line states what deep capture
# added to a step, measured on the program itself (steps inside against steps outside the
# windows). Compare it with bench/device_capture_modes.sh's bare and light medians of the same
# call. Leaves the reports (deep-duty.txt, deep-trigger.txt) and their JSON in OUT.
# Usage: bench/device_deep_capture.sh LIB VPROF OUT
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
out="$3"
run_llama() {  # DIR STEPS [ENV...]
  local dir="$1" steps="$2"
  shift 2
  rm -rf "$dir" && mkdir -p "$dir"
  env "$@" LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" \
    python3 bench/workloads/llama_step.py --nvtx --steps "$steps" 2>&1 | grep _ms
}
report() {  # DIR NAME
  "$vprof" report "$1" >"$out/$2.txt" 2>&1
  "$vprof" report "$1" --format json >"$out/$2.json" 2>/dev/null
  grep -A3 "^Deep capture" "$out/$2.txt"
}

echo "== duty cycle 0.5/1.5 s, 150 steps"
run_llama /tmp/deep-duty 150 VPROF_DEEP=0.5/1.5
report /tmp/deep-duty deep-duty

echo "== trigger: 1 s of deep capture, asked 0.5 s after a 150-step run's timed steps began"
rm -rf /tmp/deep-trigger && mkdir -p /tmp/deep-trigger
started=/tmp/deep-trigger-started
rm -f "$started"
(until [[ -e $started ]]; do sleep 0.05; done
 "$vprof" trigger /tmp/deep-trigger --in 0.5 --seconds 1) &
env VPROF_DEEP=trigger LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/deep-trigger \
  python3 bench/workloads/llama_step.py --nvtx --steps 150 --started-file "$started" 2>&1 |
  grep _ms
wait
report /tmp/deep-trigger deep-trigger
