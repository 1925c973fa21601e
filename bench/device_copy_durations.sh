#!/usr/bin/env bash
# Copy durations by capture mode against CUDA events and torch.profiler, on one GPU:
# bench/workloads/copy_kinds.py in fresh processes, the modes interleaved within each round.
# Usage: bench/device_copy_durations.sh LIB VPROF ROUNDS OUT.jsonl
# Modes: bare (CUDA events alone); light (the default); all (VPROF_CUPTI_KINDS=all); gpuwork
# (kernels, copies, memsets, CUPTI overhead, devices: no API, sync or event records);
# gpuwork_api (gpuwork and the selected API records); gpuwork_sync (gpuwork, SYNCHRONIZATION and
# CUDA_EVENT); torchprof (torch.profiler, CUDA activities). MODES="..." picks and orders them.
# Summarise with bench/copy_durations.py summary OUT.jsonl.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="$3" out="$4"
gpuwork=CONCURRENT_KERNEL,MEMCPY,MEMCPY2,MEMSET,EXTERNAL_CORRELATION,OVERHEAD,DEVICE
: >"$out"
for round in $(seq 1 "$rounds"); do
  for mode in ${MODES:-bare light all gpuwork gpuwork_api gpuwork_sync torchprof}; do
    pre="$lib" env=() flag=()
    case $mode in
      bare) pre="" ;;
      light) ;;
      all) env=(VPROF_CUPTI_KINDS=all) ;;
      gpuwork) env=(VPROF_CUPTI_KINDS=$gpuwork) ;;
      gpuwork_api) env=(VPROF_CUPTI_KINDS=$gpuwork,SELECTED_API) ;;
      gpuwork_sync) env=(VPROF_CUPTI_KINDS=$gpuwork,SYNCHRONIZATION,CUDA_EVENT) ;;
      torchprof) pre="" flag=(--torch-profiler-out "/tmp/cd-$mode.json") ;;
    esac
    dir=/tmp/cd-$mode
    rm -rf "$dir" "/tmp/cd-$mode.json" "/tmp/cd-$mode.export.json"
    if ! env "${env[@]}" LD_PRELOAD="$pre" VPROF_OUTPUT_DIR="$dir" \
        python3 bench/workloads/copy_kinds.py "${flag[@]}" >"/tmp/cd-$mode.out" 2>"/tmp/cd-$mode.err"; then
      echo "round $round $mode failed: $(tail -3 "/tmp/cd-$mode.err")" >&2
      continue
    fi
    profile=()
    case $mode in
      bare) ;;
      torchprof) profile=("/tmp/cd-$mode.json") ;;
      *) "$vprof" export --format chrome -o "/tmp/cd-$mode.export.json" "$dir" 2>/dev/null
         profile=("/tmp/cd-$mode.export.json") ;;
    esac
    python3 bench/copy_durations.py record "$mode" "$round" "/tmp/cd-$mode.out" "${profile[@]}" >>"$out"
    echo "round $round $mode done"
  done
done
