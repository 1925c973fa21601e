#!/usr/bin/env bash
# Step-time overhead of vprof against no profiler and torch.profiler, on the
# same machine, fresh processes, interleaved (device tool, 2 H200s):
# launch_loop.py (one GPU) and ddp_step.py (torchrun, 2 GPUs), 3 rounds of
# bare / vprof / torch.profiler each. Prints one line per run.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
tr="torchrun --standalone --nproc-per-node 2"
for round in 1 2 3; do
  for mode in bare vprof torchprof; do
    pre=""; flag=""
    [[ $mode == vprof ]] && pre="$lib"
    [[ $mode == torchprof ]] && flag="--torch-profiler"
    v=$(LD_PRELOAD="$pre" VPROF_OUTPUT_DIR=/tmp/ov-$mode python3 bench/workloads/launch_loop.py $flag 2>/dev/null | awk '{print $2}')
    echo "round $round $mode launch_loop_ms $v"
    v=$(LD_PRELOAD="$pre" VPROF_OUTPUT_DIR=/tmp/ov-$mode $tr bench/workloads/ddp_step.py $flag 2>/dev/null | awk '/ddp_step_ms/ {print $2}')
    echo "round $round $mode ddp_step_ms $v"
  done
done
du -sh /tmp/ov-vprof
