#!/usr/bin/env bash
# Device memory on real PyTorch: vprof's figures against what the workload's own
# allocator says.
#   train  bench/workloads/llama_step.py --nvtx: the peak of memory held over the measured
#          steps against torch.cuda.max_memory_reserved
#   churn  bench/workloads/memory_churn.py: 1 GiB allocated and given back every step
#          (empty_cache): one cudaMalloc and one cudaFree per step, and their time; again
#          under the light default (churn_light), where the allocator_churn candidate must
#          come from the API records alone
#   offload bench/workloads/offload_step.py: 8 weights of 128 MiB copied to pinned host memory
#          and back every step (and, in offload_vmm, as many bytes released and restored
#          through the virtual-memory calls): the bytes and time moved per step
# Each is run once under `vprof run`: train under the light default (NVML's samples of the
# GPU's memory in use only) and again with MEMORY2 (VPROF_CUPTI_KINDS=light,MEMORY2: every
# allocation and release), churn with MEMORY2. The Chrome export's memory counter events are
# counted. Leaves the logs and figures in OUT.
# Usage: bench/device_memory.sh LIB VPROF OUT
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
out="$3"
here="$(dirname "$0")"
measure() {  # NAME KINDS COMMAND...
  local name="$1" kinds="$2" dir="/tmp/memory-$1"
  shift 2
  rm -rf "$dir"
  VPROF_CUPTI_KINDS="$kinds" "$vprof" run --output "$dir" -- "$@" >"$out/$name.log" 2>&1
  echo "== $name: $(grep -E '_ms|max_memory|segment' "$out/$name.log" | tr '\n' ' ')"
  "$vprof" report "$dir" --format json 2>/dev/null | python3 "$here/memory_figures.py" "$out/$name.log"
  "$vprof" report "$dir" 2>/dev/null | grep -E -A1 "GPU memory|memory in use" | head -8
  "$vprof" report "$dir" --format json 2>/dev/null | python3 -c '
import json, sys
for c in json.load(sys.stdin)["candidates"]:
    print("candidate %d: %s %.3f ms per step, %s, %s (%s), %d calls per step" % (
        c["rank_order"], c["kind"], c["exposed_ns"] / 1e6, c["scope"], c["strict"],
        c["rule_id"], c["count"]))'
  "$vprof" export --format chrome -o "$dir/timeline.json" "$dir" >/dev/null 2>&1
  echo "chrome memory counter events: $(grep -o 'gpu_memory'  "$dir/timeline.json" | wc -l)" \
    "(in use: $(grep -o 'memory in use' "$dir/timeline.json" | wc -l))"
}
measure train "" python3 "$here/workloads/llama_step.py" --steps 20 --nvtx
measure train_exact light,MEMORY2 python3 "$here/workloads/llama_step.py" --steps 20 --nvtx
measure churn light,MEMORY2 python3 "$here/workloads/memory_churn.py" --steps 20 --mib 1024
measure churn_light "" python3 "$here/workloads/memory_churn.py" --steps 20 --mib 1024
measure offload "" python3 "$here/workloads/offload_step.py" --steps 10
measure offload_vmm "" python3 "$here/workloads/offload_step.py" --steps 10 --vmm
