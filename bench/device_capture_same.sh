#!/usr/bin/env bash
# Two libvprof.so builds recording the same real PyTorch workloads (device tool, one H200):
# ddp_step.py under torchrun (NVTX ranges, NCCL, DDP buckets, 30 steps) and the same with
# logprob passes and a forked DataLoader-style child (--fork-child when the workload has it),
# each run once per library, reported by one reporter; same_counts.py then compares every
# count of the two JSON reports (kernels, calls, records, ranges, steps). For changes of the
# capture side that must record the same things (a rename, a move, a refactoring).
# Usage: device_capture_same.sh NEW_LIB BASE_LIB [VPROF]
set -uo pipefail
base_lib="$(realpath "$2")"
source "$(dirname "$0")/device_env.sh" "$1"
use_reporter "${3:-}"
status=0
for variant in plain lp; do
  extra=()
  [[ $variant == lp ]] && extra+=(--logprob-passes 2 --micro-batches 3)
  for which in new base; do
    l="$lib"
    [[ $which == base ]] && l="$base_lib"
    rm -rf "/tmp/same-$variant-$which"
    LD_PRELOAD="$l" VPROF_OUTPUT_DIR="/tmp/same-$variant-$which" timeout 200 \
      torchrun --standalone --nproc-per-node 1 bench/workloads/ddp_step.py "${extra[@]}" \
      > "/tmp/same-$variant-$which.out" 2>&1
    echo "$variant $which rc=$?"
    "$vprof" report "/tmp/same-$variant-$which" --format json --output "/tmp/same-$variant-$which.json"
  done
  echo "$variant: $(python3 "$(dirname "$0")/same_counts.py" "/tmp/same-$variant-new.json" \
    "/tmp/same-$variant-base.json" | tail -20)" || status=1
done
exit $status
