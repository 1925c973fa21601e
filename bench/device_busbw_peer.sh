#!/usr/bin/env bash
# Bus bandwidth for small messages and copies between GPUs, on real PyTorch +
# NCCL (device tool, 2 H200s), with the reporter run there:
#   1. nccl_sweep.py --timing aligned (4 ops, 4 KiB..1 GiB: each timed call
#      right after an untimed one, so the ranks start it together) under vprof,
#      and compare_busbw.py: vprof's cross-rank busbw (median) against the
#      workload's own CUDA-event timing (median); the same for --timing loop;
#   2. peer_copy.py under vprof: contiguous copies between the GPUs (CUPTI
#      MEMCPY2) and strided ones (copy kernels);
#   3. clock_check: the report's clock section on one host (collective offset
#      estimates should be near 0).
# Usage: device_busbw_peer.sh [LIB] [VPROF]; the vprof binary's libprotobuf
# sits beside LIB (.device/). Leaves summary-busbw.txt, busbw-*.txt and
# reports.tgz under $OUT.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "${2:-}"
out="${OUT:-device-out}"
work=/tmp/busbw
mkdir -p "$out" "$work/reports"
s="$out/summary-busbw.txt"
date -u > "$s"
w=bench/workloads
tr="torchrun --standalone --nproc-per-node 2"
source "$(dirname "$0")/device_runs.sh"
report() {  # name: the text and JSON reports of $work/vp-<name>
  local name=$1 r="$work/reports/$1"
  "$vprof" report "$work/vp-$name" > "$r.txt" 2> "$r.err"; echo "report $name text rc=$?" >> "$s"
  "$vprof" report "$work/vp-$name" --format json --output "$r.json" 2>> "$r.err"
}
for timing in aligned loop; do
  traced "sweep_$timing" $tr $w/nccl_sweep.py "$work/sweep_$timing.jsonl" --timing "$timing"
  report "sweep_$timing"
  python3 bench/compare_busbw.py "$work/reports/sweep_$timing.json" "$work/sweep_$timing.jsonl" \
    > "$out/busbw-$timing.txt" 2>&1
done
for timing in aligned loop; do
  grep -A3 '^Clock check' "$work/reports/sweep_$timing.txt" >> "$s"
  python3 -c 'import json,sys; [print(p) for p in json.load(open(sys.argv[1]))["time_source"]["processes"]]' \
    "$work/reports/sweep_$timing.json" >> "$s" 2>&1
done
traced peer python3 $w/peer_copy.py
report peer
grep -iE "memcpy|peer|copy" "$work/reports/peer.txt" | head -20 >> "$s"
tar czf "$out/reports.tgz" -C "$work" reports sweep_aligned.jsonl sweep_loop.jsonl
cat "$s" "$out"/busbw-*.txt
