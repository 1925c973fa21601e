#!/usr/bin/env bash
# Requested vs actual, widened, on real PyTorch: bench/workloads/
# nccl_collectives.py under `vprof run -- torchrun --nproc-per-node N` (known all-reduces,
# broadcasts, all-gathers and reduce-scatters of 262,144 float32 each, then DDP steps), and the
# consistency section's collective shapes and placement, text and JSON.
# Usage: bench/device_actual_layout.sh LIB VPROF NPROC
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
dir=/tmp/actual-layout
rm -rf "$dir"
"$vprof" run --output "$dir" -- torchrun --nproc-per-node "$3" \
  "$(dirname "$0")/workloads/nccl_collectives.py" 2>&1 | tail -2
"$vprof" report "$dir" 2>/dev/null | sed -n '/^Consistency (requested vs actual)/,/^  mismatches/p'
"$vprof" report "$dir" --format json 2>/dev/null | python3 -c '
import json, sys
actual = json.load(sys.stdin)["consistency"]["actual"]
print("fingerprint", actual["fingerprint"])
for s in actual["collective_shapes"]:
    print("shape", s["function"], s["datatype"], s["red_op"], s["count"], s["comm_size"], s["ranks"], s["calls"])
for p in actual["placement"]:
    print("placement", p)'
