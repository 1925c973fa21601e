#!/usr/bin/env bash
# The ends of a process under vprof on real PyTorch: CUPTI's last records written before libcupti's teardown
# and buffers handed over later counted unread; children forked after CUDA that leave through
# sys.exit; a capture window that ends before CUDA starts. ROUNDS (3) of each, every run
# printed as
#   <case> <round> rc=<exit status> <what the report says of it>
# Usage: bench/device_exit_checks.sh LIB VPROF [ROUNDS]
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
json_field() {  # the first process's value of a gpu.capture field, or a GPU kernel count
  python3 -c "import json,sys; p=json.load(sys.stdin)['processes'][0]['gpu']; print($1)"
}
for round in $(seq "${3:-3}"); do
  dir=/tmp/ex-light
  rm -rf "$dir"
  LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" python3 bench/workloads/llama_step.py --nvtx \
    --steps 60 > /dev/null 2>&1
  rc=$?
  seen=$("$vprof" report --format json "$dir" 2>/dev/null |
           json_field "p['kernels']['count'], (p['capture'] or {}).get('buffers_unread_at_exit', 0)")
  echo "llama_exit $round rc=$rc kernels,unread_buffers=$seen"

  dir=/tmp/ex-fork
  rm -rf "$dir"
  out=$(LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" python3 bench/workloads/fork_after_cuda.py 2>&1)
  rc=$?
  echo "fork_after_cuda $round rc=$rc traces=$(ls "$dir"/*.vtrace 2>/dev/null | wc -l)" \
       "$(grep fork_after_cuda <<<"$out")"

  dir=/tmp/ex-stop
  rm -rf "$dir"
  VPROF_STOP_AFTER_S=1 LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$dir" \
    python3 bench/workloads/llama_step.py --nvtx --steps 60 > /dev/null 2>&1
  rc=$?
  seen=$("$vprof" report --format json "$dir" 2>/dev/null |
           json_field "p['kernels']['count'], (p['capture'] or {}).get('state')")
  echo "stop_before_cuda $round rc=$rc kernels,capture_state=$seen"
done
