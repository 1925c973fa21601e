#!/usr/bin/env bash
# The main job, end to end: installs what is missing, builds, runs the bundled
# simulated 4-rank training program (CPU stand-ins for CUDA and NCCL, one
# deliberately slow rank) under LD_PRELOAD=libvprof.so, and prints the report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/build.sh build

out="${VPROF_DEMO_DIR:-vprof-demo}"
rm -rf "$out"
echo "== running 4 simulated ranks under vprof (traces in $out/)"
LD_LIBRARY_PATH="$PWD/build/tests/standins" \
LD_PRELOAD="$PWD/build/interpose/libvprof.so" \
VPROF_OUTPUT_DIR="$out" \
FAKE_NCCL_BUSBW_GBPS=2 \
  build/tests/standins/sim_launch -n 4 build/tests/standins/sim_train \
    --steps 20 --bucket-elems 65536 --slow-rank 3 --slow-ms 2
echo
echo "== vprof report $out"
build/reporter/vprof report "$out"
