#!/usr/bin/env bash
# GPU capture on real PyTorch (device tool, 1-2 H200s). Runs each workload
# bare, under vprof (LD_PRELOAD), and under torch.profiler (separately), and
# leaves traces and torch.profiler's counts under $OUT for the build machine
# to compare (bench/compare_gpu_capture.py).
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
out="${OUT:-device-out}"
mkdir -p "$out"
s="$out/summary.txt"
date -u > "$s"
run() {  # name, then the command
  local name=$1; shift
  local t0=$EPOCHREALTIME
  "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"
  local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN {print $EPOCHREALTIME - $t0}") stdout=$(tr '\n' ' ' < /tmp/$name.out)" >> "$s"
  grep -iE 'malloc\(\)|free\(\)|corrupt|double free|^vprof' "/tmp/$name.err" | head -5 >> "$s"
}
mkdir -p /tmp/vt-single /tmp/vt-ddp
run single_bare python3 bench/workloads/single_gpu.py
run single_vprof env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/vt-single python3 bench/workloads/single_gpu.py
run single_torchprof python3 bench/workloads/single_gpu.py --torch-profiler --out "$out/single_torchprof.json"
tr="torchrun --standalone --nproc-per-node 2"
run ddp_bare $tr bench/workloads/nccl_collectives.py
run ddp_vprof env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/vt-ddp $tr bench/workloads/nccl_collectives.py
tail -5 /tmp/single_vprof.err >> "$s"
tar czf "$out/traces.tgz" -C /tmp vt-single vt-ddp
cat "$s"
