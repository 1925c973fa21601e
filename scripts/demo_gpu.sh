#!/usr/bin/env bash
# The demo on a machine with 2+ NVIDIA GPUs and PyTorch (called by demo.sh,
# after the build): the DDP training loop of bench/workloads/ddp_step.py
# (bucketed gradient all-reduce overlapping backward, NVTX ranges around
# forward, backward and optimizer) under `vprof run -- torchrun`, then the
# report. Usage: scripts/demo_gpu.sh BUILD_DIR OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build="$1" out="$2"
rm -rf "$out"
echo "== running a 2-GPU DDP training loop under vprof (traces in $out/)"
# NVLink multicast stays off: some machines lend GPUs without it.
NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}" \
  "$build/reporter/vprof" run --output "$out" -- \
  torchrun --standalone --nproc-per-node 2 bench/workloads/ddp_step.py
echo
echo "== vprof report $out"
"$build/reporter/vprof" report "$out"
