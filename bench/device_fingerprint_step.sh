#!/usr/bin/env bash
# Collective fingerprints on one GPU, the parts bench/device_fingerprints.sh leaves out (issue
# 20): a run whose gradients are all-reduced in bf16 (DDP's bf16_compress_hook) against one in
# fp32, which `vprof diff --bitwise` must call a representation difference; and what auditing
# costs a training step (fingerprint_check.py step-cost: DDP over an MLP, 9 gradient buckets of
# 4 MiB) with no profiler, vprof without audit, with audit, and with audit every 4th collective
# (VPROF_AUDIT_EVERY=4), interleaved. Usage: bench/device_fingerprint_step.sh LIB VPROF ROUNDS
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="${3:-5}"
for run in fp32 bf16; do
  flag=""
  [ "$run" = bf16 ] && flag="--bf16-grads"
  rm -rf "/tmp/fps-$run"
  VPROF_AUDIT=fingerprint LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="/tmp/fps-$run" \
    python3 bench/workloads/fingerprint_check.py train $flag 2>&1 | grep -v "^$"
done
echo "-- vprof diff --bitwise fp32 bf16"
"$vprof" diff --bitwise /tmp/fps-fp32 /tmp/fps-bf16
echo "exit $?"
echo "== training step cost; $rounds interleaved rounds"
for round in $(seq 1 "$rounds"); do
  for mode in bare vprof audit every4; do
    pre="$lib" env=()
    case $mode in
      bare) pre="" ;;
      audit) env=(VPROF_AUDIT=fingerprint) ;;
      every4) env=(VPROF_AUDIT=fingerprint VPROF_AUDIT_EVERY=4) ;;
    esac
    v=$(env "${env[@]}" LD_PRELOAD="$pre" VPROF_OUTPUT_DIR=/tmp/fps-cost \
          python3 bench/workloads/fingerprint_check.py step-cost 2>/dev/null | awk '{print $2}')
    echo "round $round $mode ${v:-failed}"
  done
done
