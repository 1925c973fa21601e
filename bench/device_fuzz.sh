#!/usr/bin/env bash
# The fuzz targets of scripts/fuzz.sh on a machine with many cores: each TARGET:JOBS runs JOBS
# libFuzzer processes side by side over a shared corpus (seeded from tests/fuzz), each stopping
# at 10^6/JOBS inputs or SECONDS, whichever comes first; prints per target the inputs run in all
# and any finding (the first three copied under $OUT when it is set). The binaries come from
# build-fuzz/ (scripts/fuzz.sh builds them), carried.
# -entropic=0: the reporter's ~11,000 coverage points make libFuzzer's entropic bookkeeping half
# of a slow target's time (bench/RESULTS.md, "Fuzzing the readers").
#   usage: bench/device_fuzz.sh BIN_DIR SECONDS TARGET:JOBS...
set -uo pipefail
bin_dir="$(realpath "$1")"
seconds="$2"
shift 2
export TMPDIR=/dev/shm UBSAN_OPTIONS=print_stacktrace=1
root="$(pwd)"
for spec in "$@"; do
  target="${spec%%:*}" jobs="${spec##*:}"
  work="/tmp/fuzz-$target"
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/findings"
  seeds=("$root/tests/fuzz/corpus/$target")
  [[ -d $root/tests/fuzz/regressions/$target ]] && seeds+=("$root/tests/fuzz/regressions/$target")
  (cd "$work" && "$bin_dir/fuzz_$target" -jobs="$jobs" -workers="$jobs" \
     -runs=$((1000000 / jobs + 1)) -max_total_time="$seconds" -entropic=0 -timeout=20 \
     -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/findings/" \
     corpus "${seeds[@]}" >"$work/main.log" 2>&1) &
done
wait
for spec in "$@"; do
  target="${spec%%:*}"
  work="/tmp/fuzz-$target"
  runs=$(cat "$work"/fuzz-*.log | sed -n 's/^stat::number_of_executed_units: *//p' |
         awk '{s += $1} END {print s + 0}')
  findings=$(find "$work/findings" -type f | wc -l)
  secs=$(cat "$work"/fuzz-*.log | sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' |
         sort -n | tail -1)
  echo "fuzz $target: $runs inputs in all, longest job ${secs:-?} s, $findings findings"
  if ((findings)); then
    grep -h -m 3 -E 'ERROR|runtime error|SUMMARY' "$work"/fuzz-*.log
    # The device call brings back what is under $OUT (at most 8 files): the first inputs that
    # failed, to become regression cases.
    if [[ -n ${OUT:-} ]]; then
      find "$work/findings" -type f | head -3 | while read -r f; do
        cp "$f" "$OUT/$target-$(basename "$f")"
      done
    fi
  fi
done
