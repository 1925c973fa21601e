#!/usr/bin/env bash
# The callback way of recording the light plan's API calls against CUPTI's activity records
# (for always-on capture between deep windows), measured with a probe rather than vprof
# (device tool, one H200): bench/callback_probe/callback_probe.cc, injected through
# CUDA_INJECTION64_PATH. Modes: bare (no probe); idle (the selected APIs' callbacks on, no window
# open: what the callback way costs between windows); record (the callbacks recording every call,
# and kernel records: its cost inside a window); activity (CUPTI's activity records of the selected
# APIs, and kernel records: the light plan's way); kernels (kernel records alone); toggle (record's
# callbacks switched on and off every PROBE_TOGGLE_MS ms, default 10, while the program launches:
# whether switching callbacks crashes CUPTI, as switching activity records did). ROUNDS
# interleaved rounds of fresh processes, every mode once per workload per round, printed as
#   round R <workload> <mode> <ms>
# (bench/capture_modes_summary.py reads those) followed by the probe's line: the APIs enabled,
# the calls recorded, the kernels, and the kernels whose correlation id a callback or an API
# record carried.
# Usage: device_callback_cost.sh PROBE_LIB ROUNDS WORKLOAD... (launch_loop, llama_step)
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
probe="$(realpath "$1")"
rounds="$2"
shift 2
cupti="$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13/lib/libcupti.so.13"))')"
[[ -f $cupti ]] || { echo "no libcupti at $cupti" >&2; exit 1; }
echo "libcupti: $cupti"
for round in $(seq "$rounds"); do
  for workload in "$@"; do
    for mode in ${MODES:-bare idle record activity kernels}; do
      if [[ $mode == bare ]]; then
        out=$(python3 "bench/workloads/$workload.py" 2>&1)
      else
        out=$(CUDA_INJECTION64_PATH="$probe" PROBE_CALLBACKS="$mode" PROBE_CUPTI="$cupti" \
                python3 "bench/workloads/$workload.py" 2>&1)
      fi
      rc=$?  # the workload's: a crash inside CUPTI shows here
      ms=$(awk '/_ms / {print $2}' <<<"$out")
      echo "round $round $workload $mode ${ms:-failed}"
      ((rc == 0)) || echo "callback_probe_exit $workload $mode rc=$rc"
      grep -A48 "callback_probe" <<<"$out"
    done
  done
done
