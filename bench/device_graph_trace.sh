#!/usr/bin/env bash
# What recording CUDA-graph replays whole saves, measured with a probe rather than vprof (device tool, one
# H200): bench/graph_trace/graph_trace_probe.cc, injected through CUDA_INJECTION64_PATH into
# graph_step.py (an 8-layer MLP's training step captured as one CUDA graph, replayed), enables
# per-node kernel records (kernel), whole-graph records (graph: CUPTI's GRAPH_TRACE), both, or
# none, and counts what CUPTI hands back; bare runs without the probe. ROUNDS interleaved rounds
# of fresh processes, every mode once per round; then each mode once on launch_loop.py (5,000
# kernels outside any graph). Prints one line per run: mode, ms per replay (or per loop), and
# the probe's enable results and record counts.
# Usage: device_graph_trace.sh PROBE_LIB [ROUNDS]
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
probe="$(realpath "$1")"
rounds="${2:-5}"
cupti="$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13/lib/libcupti.so.13"))')"
[[ -f $cupti ]] || { echo "no libcupti at $cupti" >&2; exit 1; }
echo "libcupti: $cupti"
run() {  # mode workload args...
  local mode="$1"; shift
  if [[ $mode == bare ]]; then
    python3 "$@" 2>&1
  else
    CUDA_INJECTION64_PATH="$probe" PROBE_KINDS="$mode" PROBE_CUPTI="$cupti" python3 "$@" 2>&1
  fi | grep -E "_ms |graph_trace_probe" | tr '\n' ' '
  echo
}
for round in $(seq "$rounds"); do
  for mode in bare kernel graph both none; do
    echo "round $round graph_step $mode: $(run "$mode" bench/workloads/graph_step.py --replays 200)"
  done
done
for mode in bare kernel graph both; do
  echo "launch_loop $mode: $(run "$mode" bench/workloads/launch_loop.py)"
done
