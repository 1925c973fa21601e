#!/usr/bin/env bash
# The main job, end to end: installs what is missing, builds what the demo runs, runs a training
# job under vprof, and prints the report. With 2+ GPUs and PyTorch present the job is a real
# 2-GPU DDP loop (scripts/demo_gpu.sh), which needs only the vprof command and libvprof.so;
# otherwise the bundled simulated 4-rank training program (CPU stand-ins for CUDA and NCCL,
# collectives as kernels on the fake GPU, one deliberately slow rank) under
# LD_PRELOAD=libvprof.so (scripts/demo_job.sh), which needs the stand-ins too. Either way only
# those targets are built (scripts/build.sh build --targets ...), not the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/demo_job.sh
scripts/bootstrap.sh

out="${VPROF_DEMO_DIR:-vprof-demo}"
gpus=$( (nvidia-smi -L 2>/dev/null || true) | grep -c '^GPU ' || true)
if [[ ${gpus:-0} -ge 2 ]] && python3 -c 'import torch, sys; sys.exit(torch.cuda.device_count() < 2)' 2>/dev/null; then
  scripts/build.sh build --targets reporter/vprof interpose/libvprof.so
  exec scripts/demo_gpu.sh build "$out"
fi
scripts/build.sh build --targets "${DEMO_TARGETS[@]}"
rm -rf "$out"
echo "== running 4 simulated ranks under vprof (traces in $out/)"
run_demo_job build "$out"
echo
echo "== vprof report $out"
build/reporter/vprof report "$out"
