# The demo's simulated training job, sourced by scripts/demo.sh and scripts/readme_sample.sh so
# that the README's sample is the report of the very job the demo runs.
# shellcheck shell=bash

# What the job needs built (ninja targets of the build folder; scripts/build.sh DIR --targets):
# the reporter, the library, and of tests/standins/ the launcher, the training program and the
# CPU stand-ins it loads (its model library, the fake CUDA runtime and driver, NCCL, CUPTI, NVML).
DEMO_TARGETS=(reporter/vprof interpose/libvprof.so
              tests/standins/sim_launch tests/standins/sim_train tests/standins/libsim_model.so
              tests/standins/libcudart.so.13 tests/standins/libcuda.so.1
              tests/standins/libnccl.so.2 tests/standins/libcupti.so.13
              tests/standins/libnvidia-ml.so.1)

# run_demo_job BUILD_DIR OUT_DIR: 4 simulated ranks (CPU stand-ins for CUDA and NCCL, collectives
# as kernels on the fake GPU) under LD_PRELOAD=libvprof.so, rank 3 deliberately late: it sleeps
# 3 ms before each of its gradient-bucket all-reduces; traces into OUT_DIR. The weight sync every
# fifth step broadcasts 1 MiB: the fake GPU runs a kernel on the CPU, whose time grows with the
# machine's load, and with the simulator's default 4 MiB it came to 1 to 2 ms per step on two
# loaded cores, as much as the late rank, so that which one the report ranked first was chance.
# The same load lengthens every rank's host gaps: with rank 3 late by 2 ms, host-bound idle was
# once projected to save 3.6 ms per step against the late rank's 2.6 ms, and ranked first.
run_demo_job() {
  local build
  build=$(cd "$1" && pwd)
  LD_LIBRARY_PATH="$build/tests/standins" \
  LD_PRELOAD="$build/interpose/libvprof.so" \
  VPROF_OUTPUT_DIR="$2" \
  FAKE_NCCL_BUSBW_GBPS=2 FAKE_NCCL_KERNELS=1 \
    "$build/tests/standins/sim_launch" -n 4 "$build/tests/standins/sim_train" \
      --steps 20 --bucket-elems 65536 --slow-rank 3 --slow-ms 3 --sync-elems 262144
}
