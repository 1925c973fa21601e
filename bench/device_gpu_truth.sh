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
# Modes: light (the default), all (VPROF_CUPTI_KINDS=all), light_memory (light,MEMORY2), and
# torchprof: torch.profiler a second time, held against its first run (how far two runs of the
# workload differ: the floor under every comparison above). MODES="..." picks them (default: the
# three vprof modes); WORKLOADS="..." picks among llama, graph and compiled.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
rounds="${3:-1}"
w=bench/workloads
for round in $(seq 1 "$rounds"); do
  for workload in ${WORKLOADS:-llama graph compiled}; do
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
      if [ "$mode" = torchprof ]; then
        again=/tmp/gt-$workload-torchprof-again.json
        rm -f "$again"
        if timeout 300 "${cmd[@]}" --torch-profiler-out "$again" >/tmp/gt.out 2>/tmp/gt.err; then
          echo "round $round $workload torchprof again: $(grep -E '_ms ' /tmp/gt.out)"
          python3 bench/compare_gpu_capture.py --torch "$theirs" "$again"
        else
          echo "round $round $workload torchprof again failed: $(tail -2 /tmp/gt.err)"
        fi
        continue
      fi
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
