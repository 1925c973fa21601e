#!/usr/bin/env bash
# A child forked before any CUDA call, as vLLM's engine forks its workers, runs 200 kernels on
# the GPU with real PyTorch under the preload; the report must show them in the child's trace
# (its own GPU capture) and none in the parent's. Prints, per process: file, kernels, capture
# state. Usage: bench/device_fork_before_cuda.sh LIB VPROF
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
use_reporter "$2"
out=$(mktemp -d)
LD_PRELOAD="$lib" VPROF_OUTPUT_DIR="$out" python3 - <<'PY'
import os, sys
import torch
pid = os.fork()
if pid == 0:
    x = torch.ones(1 << 20, device="cuda")
    for _ in range(200):
        x = x * 1.0001
    torch.cuda.synchronize()
    sys.exit(0)
_, status = os.waitpid(pid, 0)
print("fork_before_cuda child wait status", status)
PY
"$vprof" report "$out" --format json | python3 -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    capture = p["gpu"]["capture"] or {}
    print("fork_before_cuda", p["file"], "kernels", p["gpu"]["kernels"]["count"],
          "state", capture.get("state"), capture.get("detail", ""))'
