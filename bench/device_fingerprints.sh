#!/usr/bin/env bash
# Collective fingerprints on one GPU: the values equal the reference hash over the
# same bytes; two identical training runs agree call by call; a one-ulp weight change and TF32
# show where they first differ; the cost per all-reduce of 1 MiB and 256 MiB, audit off and on,
# interleaved. Usage: bench/device_fingerprints.sh LIB VPROF TRACE_DUMP OUT ROUNDS
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
dump_tool="$(realpath "$3")"
out="$4"
rounds="${5:-5}"
run() {  # DIR MODE [ARGS...]: one audited run, its trace dumped to DIR.dump
  local dir="$1"
  shift
  rm -rf "$dir"
  VPROF_AUDIT=fingerprint LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" \
    python3 bench/workloads/fingerprint_check.py "$@" 2>&1 | grep -v "^$"
  "$dump_tool" "$dir"/*.vtrace >"$dir.dump"
}
echo "== exact values"
run /tmp/fp-exact exact /tmp/fp-expect.json
python3 bench/fingerprint_compare.py exact /tmp/fp-exact.dump /tmp/fp-expect.json
echo "== training, twice the same, then one ulp of one weight, then TF32"
run /tmp/fp-a train
run /tmp/fp-b train
run /tmp/fp-ulp train --perturb
run /tmp/fp-tf32 train --tf32
for other in b ulp tf32; do
  echo "-- vprof diff --bitwise a $other"
  "$vprof" diff --bitwise /tmp/fp-a "/tmp/fp-$other"
  python3 bench/fingerprint_compare.py runs /tmp/fp-a.dump "/tmp/fp-$other.dump"
done
cp /tmp/fp-a.dump /tmp/fp-exact.dump "$out"/ 2>/dev/null
echo "== cost: bare, vprof without audit, vprof with audit; $rounds interleaved rounds"
for round in $(seq 1 "$rounds"); do
  for mode in bare vprof audit; do
    pre="$lib" env=()
    case $mode in
      bare) pre="" ;;
      audit) env=(VPROF_AUDIT=fingerprint) ;;
    esac
    v=$(env "${env[@]}" LD_PRELOAD="$pre" VPROF_OUTPUT_DIR=/tmp/fp-cost \
          python3 bench/workloads/fingerprint_check.py cost 2>/dev/null | tr '\n' ' ')
    echo "round $round $mode $v"
  done
done
