#!/usr/bin/env bash
# The light default against full capture on real PyTorch (one GPU): for each workload, one run
# under each, `vprof report --format json` of both held against each other
# (compare_capture_reports.py), the capture status each wrote, the API records each kept by
# name (from the Chrome export), and trace bytes per kernel.
# Usage: bench/device_light_capture.sh LIB VPROF OUTDIR WORKLOAD ARGS... [-- WORKLOAD ARGS...]
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
out="$3"
shift 3
while (($#)); do
  workload="$1"
  shift
  args=()
  while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
  (($#)) && shift
  for mode in light all; do
    dir=/tmp/lc-$workload-$mode
    rm -rf "$dir"
    kinds=""
    [[ $mode == all ]] && kinds=all
    VPROF_CUPTI_KINDS="$kinds" LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" \
      python3 "bench/workloads/$workload.py" "${args[@]}" 2>&1 | tail -2
    "$vprof" report "$dir" --format json >"$out/$workload-$mode.json" 2>"$out/$workload-$mode.err"
    echo "$workload $mode: report exit $? trace bytes $(du -cb "$dir"/*.vtrace | tail -1 | cut -f1)"
    "$vprof" export --format chrome -o "/tmp/lc-$workload-$mode.chrome.json" "$dir" 2>/dev/null
    python3 - "$out/$workload-$mode.json" "/tmp/lc-$workload-$mode.chrome.json" <<'PY'
import collections, json, sys
rep = json.load(open(sys.argv[1]))
for p in rep["processes"]:
    gpu = p.get("gpu") or {}
    if gpu.get("capture"):
        c = gpu["capture"]
        print("  capture", {k: c[k] for k in ("state", "mode", "api_records", "selected_runtime_apis",
              "selected_driver_apis", "hw_trace", "hw_trace_detail", "cupti_version")})
        print("  kernels", gpu["kernels"]["count"], "memcpy", gpu["memcpy"]["count"],
              "memset", gpu["memset"]["count"], "api_calls", gpu["api_calls"],
              "dropped", gpu["dropped_records"])
names = collections.Counter()
for e in json.load(open(sys.argv[2]))["traceEvents"]:
    if e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("ph") == "X":
        names[e["name"]] += 1
print("  api records:", ", ".join(f"{n} {c}" for n, c in names.most_common(14)))
PY
  done
  python3 bench/compare_capture_reports.py "$out/$workload-light.json" "$out/$workload-all.json" | tail -25
done
