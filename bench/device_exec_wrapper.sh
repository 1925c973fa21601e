#!/usr/bin/env bash
# A launcher that execs (device tool, one H200): `sh -c 'sleep 1; exec torchrun ...'` under
# the preload, as job scripts end. The shell lives four flush intervals before it becomes
# torchrun (same pid) and records nothing: it must leave no file, so every trace in the folder
# is whole and the report exits 0 (a cut trace would make it exit 3). Prints the report's
# exit status and each trace's file, pid, state, whether it is whole and a rank.
# Usage: device_exec_wrapper.sh [LIB] [VPROF]
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "${2:-}"
dir=/tmp/vp-exec
rm -rf "$dir"
LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" timeout 200 sh -c \
  'sleep 1; exec torchrun --standalone --nproc-per-node 1 bench/workloads/ddp_step.py --steps 50' \
  > /tmp/exec.out 2>&1
echo "sh -c 'sleep 1; exec torchrun' rc=$? traces=$(ls "$dir" | wc -l)"
"$vprof" report "$dir" --format json --output /tmp/exec.json
echo "report rc=$?"
python3 - /tmp/exec.json <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["processes"]:
    print(p["file"], p["pid"], p["state"], "whole" if p["whole"] else "CUT",
          "rank" if p["is_rank"] else "not a rank")
PY
