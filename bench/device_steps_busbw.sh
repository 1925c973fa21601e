#!/usr/bin/env bash
# Steps, exposed communication and cross-rank bus bandwidth on real PyTorch +
# NCCL (device tool, 2 H200s), with the reporter run there:
#   1. nccl_sweep.py (4 ops, 4 KiB..1 GiB, loop timing) under vprof, and
#      compare_busbw.py: vprof's collective (cross-rank) and per-rank busbw
#      against the workload's own CUDA-event timing;
#   2. ddp_step.py under vprof (NVTX step ranges), reported as text, JSON and
#      HTML; again with CUDA_DEVICE_MAX_CONNECTIONS=1 (one hardware queue), and
#      with --no-nvtx (steps inferred from optimizer kernels);
#   3. nvidia-smi -L, to hold the communicator members' GPU UUIDs against.
# Usage: device_steps_busbw.sh [LIB] [VPROF]; the vprof binary's libprotobuf
# sits beside LIB (.device/). Leaves summary-steps.txt, busbw.txt, reports.tgz
# and traces.tgz under $OUT.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "${2:-}"
out="${OUT:-device-out}"
work=/tmp/steps
mkdir -p "$out" "$work/reports"
s="$out/summary-steps.txt"
date -u > "$s"
nvidia-smi -L >> "$s"
w=bench/workloads
tr="torchrun --standalone --nproc-per-node 2"
source "$(dirname "$0")/device_runs.sh"
report() {  # name: the reports of $work/vp-<name>
  local name=$1 r="$work/reports/$1"
  "$vprof" report "$work/vp-$name" > "$r.txt" 2> "$r.err"; echo "report $name text rc=$?" >> "$s"
  "$vprof" report "$work/vp-$name" --format json --output "$r.json" 2>> "$r.err"
  "$vprof" report "$work/vp-$name" --format html --output "$r.html" 2>> "$r.err"
}
traced sweep $tr $w/nccl_sweep.py $work/sweep.jsonl
report sweep
python3 bench/compare_busbw.py "$work/reports/sweep.json" "$work/sweep.jsonl" > "$out/busbw.txt" 2>&1
traced ddp $tr $w/ddp_step.py
report ddp
traced ddp_conn1 env CUDA_DEVICE_MAX_CONNECTIONS=1 $tr $w/ddp_step.py
report ddp_conn1
traced ddp_nonvtx $tr $w/ddp_step.py --no-nvtx
report ddp_nonvtx
tar czf "$out/reports.tgz" -C "$work" reports sweep.jsonl
tar czf "$out/traces.tgz" -C "$work" vp-ddp vp-ddp_conn1 vp-ddp_nonvtx vp-sweep
cat "$s"
