#!/usr/bin/env bash
# GPU memory by phase on real PyTorch: vprof's most and least held per phase against
# PyTorch's own per-phase figures (bench/workloads/llama_step.py --phase-memory --empty-cache:
# the cache goes back to CUDA after every step, so each phase allocates anew).
#   nvtx      forward, backward and optimizer NVTX ranges, VPROF_CUPTI_KINDS=light,MEMORY2
#   inferred  no phase ranges (only the step's): the phases vprof infers from launching threads
#             and optimizer kernels, same kinds
#   sampled   the NVTX ranges under the light default (no MEMORY2) with the writer ticking every
#             10 ms (VPROF_FLUSH_MS=10, the least it takes): NVML's samples inside each phase only
# Each is run once under `vprof run` (RUNS="..." picks them); leaves the logs in OUT.
# Usage: bench/device_phase_memory.sh LIB VPROF OUT
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
out="$3"
here="$(dirname "$0")"
measure() {  # NAME KINDS FLUSH_MS WORKLOAD_FLAGS...
  local name="$1" kinds="$2" flush="$3" dir="/tmp/phase-memory-$1"
  shift 3
  rm -rf "$dir"
  VPROF_CUPTI_KINDS="$kinds" VPROF_FLUSH_MS="$flush" "$vprof" run --output "$dir" -- \
    python3 "$here/workloads/llama_step.py" --steps 20 --nvtx --phase-memory --empty-cache "$@" \
    >"$out/$name.log" 2>&1
  echo "== $name: $(grep -E '_ms' "$out/$name.log" | tr '\n' ' ')"
  "$vprof" report "$dir" --format json 2>/dev/null |
    python3 "$here/phase_memory_figures.py" "$out/$name.log"
  "$vprof" report "$dir" 2>/dev/null | grep -E -A8 "^  GPU memory by phase" | head -12
  "$vprof" report "$dir" 2>/dev/null | grep -E "^ *GPU memory" | head -2
}
for run in ${RUNS:-nvtx inferred sampled}; do
  case $run in
    nvtx) measure nvtx light,MEMORY2 250 --nvtx-phases ;;
    inferred) measure inferred light,MEMORY2 250 ;;
    sampled) measure sampled "" 10 --nvtx-phases ;;
  esac
done
