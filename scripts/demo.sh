#!/usr/bin/env bash
# The main job, end to end: installs what is missing, builds, runs a training
# job under vprof, and prints the report. With 2+ GPUs and PyTorch present the
# job is a real 2-GPU DDP loop (scripts/demo_gpu.sh); otherwise the bundled
# simulated 4-rank training program (CPU stand-ins for CUDA and NCCL, collectives
# as kernels on the fake GPU, one deliberately slow rank) under LD_PRELOAD=libvprof.so.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh build

out="${VPROF_DEMO_DIR:-vprof-demo}"
gpus=$( (nvidia-smi -L 2>/dev/null || true) | grep -c '^GPU ' || true)
if [[ ${gpus:-0} -ge 2 ]] && python3 -c 'import torch, sys; sys.exit(torch.cuda.device_count() < 2)' 2>/dev/null; then
  exec scripts/demo_gpu.sh build "$out"
fi
rm -rf "$out"
echo "== running 4 simulated ranks under vprof (traces in $out/)"
LD_LIBRARY_PATH="$PWD/build/tests/standins" \
LD_PRELOAD="$PWD/build/capture/libvprof.so" \
VPROF_OUTPUT_DIR="$out" \
FAKE_NCCL_BUSBW_GBPS=2 FAKE_NCCL_KERNELS=1 \
  build/tests/standins/sim_launch -n 4 build/tests/standins/sim_train \
    --steps 20 --bucket-elems 65536 --slow-rank 3 --slow-ms 2
echo
echo "== vprof report $out"
build/reporter/vprof report "$out"
