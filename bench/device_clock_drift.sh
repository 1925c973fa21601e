#!/usr/bin/env bash
# The clock check's drift on a long run (device tool, 2 H200s): ddp_step.py for
# 3,000 timed steps (about 37 s) under vprof, so that its all-reduces span more than the 30 s a
# drift fit needs (kMinDriftSpanNs). One host, one clock: the fitted drift must
# be near 0 and the offset within its bound. Usage: device_clock_drift.sh [LIB] [VPROF];
# leaves the text and JSON reports under $OUT.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
vprof="$(realpath "${2:-.device/vprof}")"
export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="${OUT:-device-out}"
mkdir -p "$out"
LD_PRELOAD="$lib" VPROF_OUTPUT_DIR=/tmp/vp-long timeout 300 \
  torchrun --standalone --nproc-per-node 2 bench/workloads/ddp_step.py --steps 3000 \
  > /tmp/long.out 2>&1
echo "ddp --steps 3000 rc=$? $(grep ddp_step_ms /tmp/long.out)"
"$vprof" report /tmp/vp-long > "$out/long.txt" 2>&1
echo "report rc=$?"
"$vprof" report /tmp/vp-long --format json --output "$out/long.json"
grep -A3 '^Clock check' "$out/long.txt"
python3 - "$out/long.json" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["time_source"]["processes"]:
    print({k: v for k, v in p.items() if k.startswith("collective") or k == "file"})
PY
