#!/usr/bin/env bash
# Fuzzes the readers of what vprof is handed (tests/fuzz/README.md) with
# libFuzzer under ASan + UBSan: builds the targets in build-fuzz/ with clang,
# then runs each in turn, one job, for SECONDS over its seed corpus and
# regression cases, and prints how many inputs it ran. A finding (crash,
# leak, sanitizer report, timeout, out of memory) stops that target with the
# input saved under build-fuzz/findings/<target>/ and makes the script fail.
#   usage: scripts/fuzz.sh [SECONDS] [TARGET...] [-LIBFUZZER_FLAG...]
#   SECONDS per target (default 600); TARGET one of trace_reader gpu_batch
#   node_summary run_contract phase_rules diff_json (default all); flags such
#   as -runs=1000000 go to every target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
targets=()
flags=()
for arg in "$@"; do
  if [[ "$arg" == -* ]]; then flags+=("$arg"); else targets+=("$arg"); fi
done
if ((${#targets[@]} == 0)); then
  targets=(trace_reader gpu_batch node_summary run_contract phase_rules diff_json)
fi

dir=build-fuzz
if [[ ! -f "$dir/build.ninja" ]]; then
  CC=clang CXX=clang++ meson setup "$dir" -Dcudatoolkit="${VPROF_CUDA_TOOLKIT:-/usr/local/cuda}" \
    -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C "$dir" "${targets[@]/#/tests/fuzz/fuzz_}" >/dev/null

# The targets write every input to a file: on tmpfs that costs nothing, on a
# disk it was nine tenths of the time of a fast target.
if [[ -d /dev/shm && -w /dev/shm ]]; then export TMPDIR=/dev/shm; fi

failed=()
for target in "${targets[@]}"; do
  # New inputs go to the first folder, so the committed seeds stay as they are.
  work="$dir/fuzz-corpus/$target"
  findings="$dir/findings/$target"
  log="$dir/fuzz-$target.log"
  mkdir -p "$work" "$findings"
  seeds=(tests/fuzz/corpus/"$target")
  if [[ -d tests/fuzz/regressions/$target ]]; then seeds+=(tests/fuzz/regressions/"$target"); fi
  status=0
  UBSAN_OPTIONS=print_stacktrace=1 \
    "$dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" "${flags[@]}" "$work" "${seeds[@]}" \
    >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
  corpus=$(find "$work" -type f | wc -l)
  if ((status == 0)); then
    echo "fuzz $target: ${runs:-?} inputs in ${took:-?} s, $corpus new corpus files, no finding"
  else
    echo "fuzz $target: FINDING after ${runs:-?} inputs (exit $status); input in $findings/," \
      "log in $log:" >&2
    grep -m 5 -E 'ERROR|runtime error|SUMMARY' "$log" >&2 || tail -n 20 "$log" >&2
    failed+=("$target")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
