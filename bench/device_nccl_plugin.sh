#!/usr/bin/env bash
# NCCL profiler plugin on real PyTorch + NCCL 2.28 (device tool, 2 H200s).
#   1. nccl_sweep.py (4 ops, 4 KiB..1 GiB) under vprof, with the workload's
#      own CUDA-event timing; up to 64 MiB again with NCCL_ALGO=Ring, and
#      all-reduce alone with NCCL_ALGO=Tree (NCCL has no Tree all-gather).
#   2. ctypes_nccl.py (NCCL through a dlopen handle, as vLLM's PyNccl) under vprof.
#   3. Overhead on small messages: the sweep up to 1 MiB, bare / vprof with
#      VPROF_NCCL_PLUGIN=0 / vprof / vprof with VPROF_NCCL_KERNEL_CH=1,
#      interleaved, ROUNDS rounds (default 2); GPU time per call from the
#      workload's own events. Usage: device_nccl_plugin.sh [LIB] [ROUNDS] [STEPS]
#      with STEPS "sweep overhead" by default.
# Leaves summary-plugin.txt and plugin.tgz (traces, the workload's JSON lines)
# under $OUT.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
rounds="${2:-2}"
out="${OUT:-device-out}"
work=/tmp/plugin
mkdir -p "$out" "$work"
s="$out/summary-plugin.txt"
date -u > "$s"
w=bench/workloads
tr="torchrun --standalone --nproc-per-node 2"
run() {  # name, then the command; 150 s at most per run
  local name=$1; shift
  local t0=$EPOCHREALTIME
  timeout 150 "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"
  echo "$name rc=$? secs=$(awk "BEGIN {print $EPOCHREALTIME - $t0}") $(grep -v '^W' /tmp/$name.out | tr '\n' ' ')" >> "$s"
  grep -iE 'malloc\(\)|free\(\)|corrupt|double free|^vprof|NCCL WARN' "/tmp/$name.err" | head -5 >> "$s"
}
traced() {  # name, then the command, under vprof with traces in $work/vp-<name>
  local name=$1; shift
  run "$name" env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$work/vp-$name" "$@"
}
steps="${3:-sweep overhead}"
if [[ $steps == *sweep* ]]; then
  traced sweep $tr $w/nccl_sweep.py $work/sweep.jsonl
  traced ring env NCCL_ALGO=Ring $tr $w/nccl_sweep.py $work/ring.jsonl --max-bytes 67108864
  traced tree env NCCL_ALGO=Tree $tr $w/nccl_sweep.py $work/tree.jsonl --max-bytes 67108864 --ops all_reduce
  traced ctypes $tr $w/ctypes_nccl.py
  tar czf "$out/plugin.tgz" -C /tmp plugin
fi
small="--max-bytes 1048576 --timing each"
for round in $(seq "$rounds"); do
  [[ $steps == *overhead* ]] || break
  run "ov${round}_bare" $tr $w/nccl_sweep.py $work/ov$round-bare.jsonl $small
  for mode in noplugin plugin kernelch; do
    settings=()
    [[ $mode == noplugin ]] && settings=(VPROF_NCCL_PLUGIN=0)
    [[ $mode == kernelch ]] && settings=(VPROF_NCCL_KERNEL_CH=1)
    run "ov${round}_$mode" env LD_PRELOAD="$lib" "${settings[@]}" VPROF_OUTPUT_DIR=/tmp/vp-ov \
      $tr $w/nccl_sweep.py $work/ov$round-$mode.jsonl $small
  done
done
tar czf "$out/plugin.tgz" -C /tmp plugin
cat "$s"
