#!/usr/bin/env bash
# Inferred phases and the collective clock check on real PyTorch + NCCL (device tool,
# 2 H200s): ddp_step.py under vprof without NVTX (phases inferred from the process role and
# kernel classes) and with NVTX (phases from ranges); for each, the report's inferred-phase
# section and its Clock check line (a steady workload on one host: offsets and drift near 0).
# Then ddp_step.py for 3,000 timed steps (about 37 s), so that its all-reduces span the 30 s a
# drift fit needs (kMinDriftSpanNs): on one host, one clock, the drift must come out near 0.
# The lp runs add two forward-only (logprob) passes and three micro-batches to each step, with
# and without NVTX: the inferred logprob row against the NVTX steps' logprob phase.
# Usage: device_phases_clock.sh [LIB] [VPROF]; leaves the text and JSON reports under $OUT.
# SKIP_LONG=1 stops before the 3,000-step run; NPROC (default 2) sets the ranks (GPUs).
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "${2:-}"
out="${OUT:-device-out}"
mkdir -p "$out"
lp=(--logprob-passes 2 --micro-batches 3)
for name in ddp_nonvtx ddp lp_nonvtx lp; do
  extra=()
  [[ $name == *_nonvtx ]] && extra+=(--no-nvtx)
  [[ $name == lp* ]] && extra+=("${lp[@]}")
  LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="/tmp/vp-$name" timeout 200 \
    torchrun --standalone --nproc-per-node "${NPROC:-2}" bench/workloads/ddp_step.py "${extra[@]}" \
    > "/tmp/$name.out" 2>&1
  echo "$name rc=$?"
  "$vprof" report "/tmp/vp-$name" > "$out/$name.txt" 2>&1
  echo "report $name rc=$?"
  "$vprof" report "/tmp/vp-$name" --format json --output "$out/$name.json"
  sed -n '/^Phases (inferred/,/^Steps/p' "$out/$name.txt" | head -40
  grep -A3 '^Clock check' "$out/$name.txt"
done
[[ ${SKIP_LONG:-0} == 1 ]] && exit 0
LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/vp-long timeout 300 \
  torchrun --standalone --nproc-per-node "${NPROC:-2}" bench/workloads/ddp_step.py --steps 3000 \
  > /tmp/long.out 2>&1
echo "ddp --steps 3000 rc=$? $(grep ddp_step_ms /tmp/long.out)"
"$vprof" report /tmp/vp-long > "$out/long.txt" 2>&1
echo "report long rc=$?"
"$vprof" report /tmp/vp-long --format json --output "$out/long.json"
grep -A3 '^Clock check' "$out/long.txt"
python3 - "$out/long.json" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["time_source"]["processes"]:
    print({k: v for k, v in p.items() if k.startswith("collective") or k == "file"})
PY
