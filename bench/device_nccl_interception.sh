#!/usr/bin/env bash
# Runs on the 2-GPU H200 machine (device tool): real PyTorch + NCCL under
# LD_PRELOAD=libvprof.so. Expects a prebuilt libvprof.so at $1 (default
# .device/libvprof.so); writes everything under $OUT (or ./device-out).
#   1. bench/workloads/nccl_collectives.py bare and traced: exit codes,
#      output, heap-check warnings, traces (traces.tgz, reported on the
#      build machine with `vprof report`).
#   2. bench/workloads/allreduce_loop.py, bare and traced, interleaved x3:
#      host ns per dist.all_reduce call.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
out="${OUT:-device-out}"
mkdir -p "$out"
summary="$out/summary.txt"
{
  date -u; nvidia-smi -L; python3 -c 'import torch; print("torch", torch.__version__, "gpus", torch.cuda.device_count(), "nccl", torch.cuda.nccl.version())'
  ldd "$lib"
} > "$summary" 2>&1

tr="torchrun --standalone --nproc-per-node 2"
mkdir -p /tmp/wl-bare /tmp/wl-traced /tmp/vprof-traces
VPROF_WORKLOAD_LOG=/tmp/wl-bare $tr bench/workloads/nccl_collectives.py > /tmp/bare.out 2> /tmp/bare.err
echo "bare rc=$?" >> "$summary"
LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/vprof-traces VPROF_LOG_LEVEL=info \
  VPROF_WORKLOAD_LOG=/tmp/wl-traced $tr bench/workloads/nccl_collectives.py > /tmp/traced.out 2> /tmp/traced.err
echo "traced rc=$?" >> "$summary"
{
  echo "--- stdout bare:"; cat /tmp/bare.out
  echo "--- stdout traced:"; cat /tmp/traced.out
  if cmp -s /tmp/bare.out /tmp/traced.out; then echo "stdout identical"; else echo "stdout DIFFERS"; fi
  echo "--- heap-check lines (malloc/free/corrupt) in stderr:"
  grep -ciE 'malloc\(\)|free\(\)|corrupt|double free' /tmp/traced.err /tmp/bare.err
  echo "--- vprof lines in traced stderr:"; grep '^vprof' /tmp/traced.err
  echo "--- workload logs:"; cat /tmp/wl-traced/*.json; echo
  ls -la /tmp/vprof-traces
} >> "$summary" 2>&1
cp /tmp/traced.err "$out/traced.stderr.txt"
tar czf "$out/traces.tgz" -C /tmp vprof-traces

for i in 1 2 3; do
  for mode in bare traced; do
    if [[ $mode == traced ]]; then pre="$lib"; else pre=""; fi
    ns=$(LD_PRELOAD="$pre" VPROF_OUTPUT_DIR=/tmp/vprof-loop $tr bench/workloads/allreduce_loop.py 2>/dev/null | awk '/allreduce_host_ns_per_call/ {print $2}')
    echo "loop round $i $mode allreduce_host_ns_per_call $ns" >> "$summary"
  done
done
cat "$summary"
