#!/usr/bin/env bash
# vprof and torch.profiler in one process (device tool, one H200): vprof takes
# CUPTI at cuInit; torch.profiler starts later. The program must finish with
# its normal output; we record what each tool reports.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
python3 bench/workloads/single_gpu.py --torch-profiler-out /tmp/tp-bare.json > /tmp/bare.out 2>&1
echo "bare+torch.profiler rc=$? $(tail -1 /tmp/bare.out) $(cat /tmp/tp-bare.json)"
LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/conflict python3 bench/workloads/single_gpu.py \
  --torch-profiler-out /tmp/tp-vprof.json > /tmp/both.out 2>&1
echo "vprof+torch.profiler rc=$? $(cat /tmp/tp-vprof.json 2>/dev/null)"
grep -iE 'vprof|cupti|error|warn|malloc|corrupt' /tmp/both.out | head -12
tail -2 /tmp/both.out
ls -la /tmp/conflict
