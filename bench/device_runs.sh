# Sourced by the bench/device_*.sh scripts that run workloads under vprof and
# report them on the GPU machine. They set $s (the summary file), $work (the
# scratch folder), $lib (device_env.sh) and $vprof first.

run() {  # name, then the command; 200 s at most per run; one summary line
  local name=$1; shift
  local t0=$EPOCHREALTIME
  timeout 200 "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"
  echo "$name rc=$? secs=$(awk "BEGIN {print $EPOCHREALTIME - $t0}") $(grep -v '^W' /tmp/$name.out | tr '\n' ' ')" >> "$s"
  grep -iE 'malloc\(\)|free\(\)|corrupt|double free|^vprof|NCCL WARN|Error' "/tmp/$name.err" | head -5 >> "$s"
}

traced() {  # name, then the command, under vprof with traces in $work/vp-<name>
  local name=$1; shift
  run "$name" env LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$work/vp-$name" "$@"
}
