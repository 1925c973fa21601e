#!/usr/bin/env bash
# Counts and GPU time by capture mode against torch.profiler, on one GPU: the Llama training
# step (bench/workloads/llama_step.py), the whole step captured in a CUDA graph and replayed
# (graph_step.py), and the Llama step through torch.compile in reduce-overhead mode (llama_step.py
# --compile reduce-overhead), each under vprof in every mode and under torch.profiler (CUDA
# activities), the timed part marked by an NVTX range "measured" in every run. For each workload
# and vprof mode, bench/compare_gpu_capture.py prints kernels, NCCL kernels, copies, memsets and
# graph replays recorded whole, count and time, beside torch.profiler's. Fresh processes; with
# ROUNDS > 1 the modes are interleaved within each round and every round is printed.
# Usage: bench/device_gpu_truth.sh LIB VPROF [ROUNDS]
# Modes: light (the default), all (VPROF_CUPTI_KINDS=all), light_memory (light,MEMORY2);
# MODES="..." picks them.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="${3:-1}"
w=bench/workloads
for round in $(seq 1 "$rounds"); do
  for workload in llama graph compiled; do
    case $workload in
      llama) cmd=(python3 $w/llama_step.py --steps 10) ;;
      graph) cmd=(python3 $w/graph_step.py --replays 20) ;;
      compiled) cmd=(python3 $w/llama_step.py --steps 10 --compile reduce-overhead) ;;
    esac
    theirs=/tmp/gt-$workload-torchprof.json
    rm -f "$theirs"
    if ! timeout 300 "${cmd[@]}" --torch-profiler-out "$theirs" >/tmp/gt.out 2>/tmp/gt.err; then
      echo "round $round $workload torchprof failed: $(tail -2 /tmp/gt.err)"
      continue
    fi
    echo "round $round $workload torchprof: $(grep -E '_ms ' /tmp/gt.out)"
    for mode in ${MODES:-light all light_memory}; do
      kinds=()
      case $mode in
        all) kinds=(VPROF_CUPTI_KINDS=all) ;;
        light_memory) kinds=(VPROF_CUPTI_KINDS=light,MEMORY2) ;;
      esac
      dir=/tmp/gt-$workload-$mode
      rm -rf "$dir"
      if ! env "${kinds[@]}" LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" timeout 300 "${cmd[@]}" \
          --measured >/tmp/gt.out 2>/tmp/gt.err; then
        echo "round $round $workload $mode failed: $(tail -2 /tmp/gt.err)"
        continue
      fi
      echo "round $round $workload $mode: $(grep -E '_ms ' /tmp/gt.out)"
      "$vprof" export --format chrome -o "$dir.json" "$dir" 2>/dev/null
      python3 bench/compare_gpu_capture.py "$dir.json" "$theirs"
    done
  done
done
