#!/usr/bin/env bash
# GPU capture on real PyTorch (device tool, 2 H200s): the workloads single_gpu.py,
# ddp_step.py and tp_forward.py, each under vprof (LD_PRELOAD) and, separately, under
# torch.profiler for its GPU counts (tp also bare, to compare output), plus the GPU clock check.
# Usage: device_gpu_capture.sh [LIB] [WORKLOAD...] (single ddp tp clock; default all).
# Leaves summary-gpu.txt and capture.tgz (traces, torch.profiler counts, clock
# windows) under $OUT; read them with bench/compare_gpu_capture.py and
# bench/clock_error.py on the build machine.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
shift $(( $# > 0 ))
workloads="${*:-single ddp tp clock}"
out="${OUT:-device-out}"
work=/tmp/capture
mkdir -p "$out" "$work"
s="$out/summary-gpu.txt"
date -u > "$s"
run() {  # name, then the command; 150 s at most per run
  local name=$1; shift
  local t0=$EPOCHREALTIME
  timeout 150 "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"
  local rc=$?
  echo "$name rc=$rc secs=$(awk "BEGIN {print $EPOCHREALTIME - $t0}") stdout=$(grep -v '^W' /tmp/$name.out | tr '\n' ' ')" >> "$s"
  grep -iE 'malloc\(\)|free\(\)|corrupt|double free|^vprof' "/tmp/$name.err" | head -5 >> "$s"
}
w=bench/workloads
tr="torchrun --standalone --nproc-per-node 2"
for wl in $workloads; do
  case $wl in
    single)  # bare first: torch.compile's cache is then warm for the compared runs
      run single_bare python3 $w/single_gpu.py
      run single_vprof env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=$work/vt-single python3 $w/single_gpu.py
      run single_torchprof python3 $w/single_gpu.py --torch-profiler-out $work/torchprof-single.json ;;
    ddp)
      run ddp_vprof env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=$work/vt-ddp $tr $w/ddp_step.py
      run ddp_torchprof $tr $w/ddp_step.py --torch-profiler-out $work/torchprof-ddp ;;
    tp)
      run tp_bare $tr $w/tp_forward.py
      run tp_vprof env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=$work/vt-tp $tr $w/tp_forward.py
      run tp_torchprof $tr $w/tp_forward.py --torch-profiler-out $work/torchprof-tp ;;
    clock)
      run clock_vprof env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=$work/vt-clock python3 $w/clock_check.py $work/clock-windows.json ;;
  esac
done
tar czf "$out/capture.tgz" -C /tmp capture
cat "$s"
