#!/usr/bin/env bash
# Two reporters on the same real traces (device tool, one or two H200s):
# device_phases_clock.sh records ddp_step.py under vprof (with and without NVTX,
# logprob passes, 3,000 steps), then each trace folder is reported by both and
# the reports in every format and both exports (chrome, hta) compared byte for
# byte (JSON reports that differ, value for value); the long run's report is
# timed three times each, alternating (user + sys CPU seconds).
# Usage: device_reporter_check.sh LIB NEW_VPROF BASE_VPROF; NPROC as for
# device_phases_clock.sh (default here 1). The runs' log goes to $OUT; the
# comparisons and timings are printed.
set -uo pipefail
lib="$1" new="$(realpath "$2")" base="$(realpath "$3")"
out="${OUT:-device-out}"
mkdir -p "$out"
# The phases script's own reports stay in /tmp: only this script's log comes back.
OUT=/tmp/phases-out NPROC="${NPROC:-1}" bash "$(dirname "$0")/device_phases_clock.sh" "$lib" "$new" \
  > "$out/runs.log" 2>&1
tail -5 "$out/runs.log"
for dir in /tmp/vp-*/; do
  dir="${dir%/}"
  name="$(basename "$dir")"
  for format in text json markdown html; do
    "$new" report "$dir" --format "$format" --output "/tmp/$name.new.$format"
    "$base" report "$dir" --format "$format" --output "/tmp/$name.base.$format"
    if cmp -s "/tmp/$name.new.$format" "/tmp/$name.base.$format"; then
      echo "$name $format: identical ($(wc -c < "/tmp/$name.new.$format") bytes)"
    elif [[ $format == json ]] && python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
      "/tmp/$name.new.$format" "/tmp/$name.base.$format"; then
      # A change of layout only (the JSON report's step rows became one line each).
      echo "$name $format: same values, laid out differently ($(wc -c < "/tmp/$name.new.$format")" \
        "bytes against $(wc -c < "/tmp/$name.base.$format"))"
    else
      echo "$name $format: DIFFERENT"
    fi
  done
done
for dir in /tmp/vp-*/; do
  dir="${dir%/}"
  name="$(basename "$dir")"
  "$new" export --format chrome "$dir" > "/tmp/$name.new.chrome"
  "$base" export --format chrome "$dir" > "/tmp/$name.base.chrome"
  "$new" export --format hta -o "/tmp/$name.new.hta" "$dir" > /dev/null
  "$base" export --format hta -o "/tmp/$name.base.hta" "$dir" > /dev/null
  for kind in chrome hta; do
    if diff -rq "/tmp/$name.new.$kind" "/tmp/$name.base.$kind" > /dev/null; then
      echo "$name export $kind: identical ($(cat $(find "/tmp/$name.new.$kind" -type f) | wc -c) bytes)"
    else
      echo "$name export $kind: DIFFERENT"
    fi
  done
done
echo "trace bytes of vp-long: $(cat /tmp/vp-long/*.vtrace | wc -c)"
TIMEFORMAT='%U %S'
for round in 1 2 3; do
  for which in new base; do
    vprof="$new"
    [[ $which == base ]] && vprof="$base"
    seconds=$( { time "$vprof" report /tmp/vp-long --format json --output /dev/null; } 2>&1 )
    echo "round $round $which user_sys_s $seconds"
  done
done
