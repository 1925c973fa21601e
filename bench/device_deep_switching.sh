#!/usr/bin/env bash
# Deep windows switched as fast as the writer ticks, to find crashes that a switch can cause in
# the program's own threads (CUPTI 13.0 crashed inside cudaLaunchKernel when the selected API
# records were switched; bench/RESULTS.md, 2026-12-04 (a36dbc4)) and at exit. Fresh processes
# of the launch loop under VPROF_FLUSH_MS=10 and VPROF_DEEP=ON/PERIOD, plans interleaved, for
# SECONDS_TOTAL seconds; every run printed as
#   <plan> <n> rc=<exit status> windows=<deep windows in its trace> <its launch_loop_ms line>
# and counts per plan at the end (runs, non-zero exits, windows). A windowed run switches the
# plan's kinds twice per window.
# Usage: bench/device_deep_switching.sh LIB VPROF [SECONDS_TOTAL (300)]
# PLANS ("light CONCURRENT_KERNEL"), DEEP ("0.01/0.02") and REPS (200) pick what runs.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
end=$((SECONDS + ${3:-300}))
declare -A runs crashed windows_seen
n=0
while ((SECONDS < end)); do
  n=$((n + 1))
  for plan in ${PLANS:-light CONCURRENT_KERNEL}; do
    dir=/tmp/ds-$plan
    rm -rf "$dir"
    out=$(env VPROF_FLUSH_MS=10 VPROF_DEEP="${DEEP:-0.01/0.02}" VPROF_CUPTI_KINDS="$plan" \
            LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" \
            python3 bench/workloads/launch_loop.py --nvtx --reps "${REPS:-200}" 2>/dev/null)
    rc=$?
    windows=$("$vprof" report "$dir" 2>/dev/null | grep -o "[0-9]* deep window" |
                grep -o "[0-9]*" | head -1)
    echo "$plan $n rc=$rc windows=${windows:-?} $(grep _ms <<<"$out")"
    runs[$plan]=$((${runs[$plan]:-0} + 1))
    ((rc == 0)) || crashed[$plan]=$((${crashed[$plan]:-0} + 1))
    windows_seen[$plan]=$((${windows_seen[$plan]:-0} + ${windows:-0}))
  done
done
for plan in "${!runs[@]}"; do
  echo "$plan: ${crashed[$plan]:-0} of ${runs[$plan]} runs exited non-zero;" \
       "${windows_seen[$plan]:-0} windows in the reports of all runs"
done
