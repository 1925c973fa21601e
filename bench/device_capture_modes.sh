#!/usr/bin/env bash
# Cost of each capture mode against no profiler and torch.profiler, on one GPU: fresh
# processes, modes interleaved within each round, every run printed as
#   round R <workload> <mode> <ms>
# Usage: bench/device_capture_modes.sh LIB ROUNDS WORKLOAD... (launch_loop, llama_step,
# graph_step: bench/workloads/*.py). Summarise with bench/capture_modes_summary.py.
# Modes: bare; light (the default); kernels (CONCURRENT_KERNEL records only); all
# (VPROF_CUPTI_KINDS=all, every kind and every API record); nogpu (VPROF_GPU=0: NCCL and NVTX
# capture only); torchprof (torch.profiler, CPU + CUDA activities). The levers of the light
# default, each a VPROF_CUPTI_KINDS list: gpuwork (kernels, copies, memsets, NCCL links, CUPTI
# overhead, devices: no API, sync or event records), gpuwork_api (gpuwork and the selected API
# records: the light default without GRAPH_TRACE, so CUDA-graph replays
# node by node), gpuwork_sync (gpuwork and
# SYNCHRONIZATION, CUDA_EVENT), oldlight (gpuwork, the
# selected API records, SYNCHRONIZATION and CUDA_EVENT); between (VPROF_DEEP=trigger with no
# trigger: always-on capture between deep windows); between_noapi (the same with the gpuwork
# plan: no API records, which stay on between windows in the light plan); device (VPROF_CUPTI_KINDS=DEVICE: CUPTI
# attached, nothing recorded per launch); nonvml (the light default with NVML's sampling off:
# the CPU stand-in libnvidia-ml.so.1 from NONVML_DIR, told to fail its initialisation, is found
# first, so the capture records why it could not sample and carries on); baseline (the light
# default of another libvprof.so, named by BASELINE_LIB: a change's cost, A against B in the same
# rounds). MODES="..." picks and orders them.
set -uo pipefail
source "$(dirname "$0")/device_env.sh"
rounds="$2"
shift 2
gpuwork=CONCURRENT_KERNEL,MEMCPY,MEMCPY2,MEMSET,EXTERNAL_CORRELATION,OVERHEAD,DEVICE
for round in $(seq 1 "$rounds"); do
  for workload in "$@"; do
    for mode in ${MODES:-bare light kernels all nogpu torchprof}; do
      pre="$lib" flag="" env=()
      case $mode in
        bare) pre="" ;;
        kernels) env=(VPROF_CUPTI_KINDS=CONCURRENT_KERNEL) ;;
        gpuwork) env=(VPROF_CUPTI_KINDS=$gpuwork) ;;
        gpuwork_api) env=(VPROF_CUPTI_KINDS=$gpuwork,SELECTED_API) ;;
        gpuwork_sync) env=(VPROF_CUPTI_KINDS=$gpuwork,SYNCHRONIZATION,CUDA_EVENT) ;;
        oldlight) env=(VPROF_CUPTI_KINDS=$gpuwork,SYNCHRONIZATION,CUDA_EVENT,SELECTED_API) ;;
        between) env=(VPROF_DEEP=trigger) ;;
        between_noapi) env=(VPROF_DEEP=trigger VPROF_CUPTI_KINDS=$gpuwork) ;;
        device) env=(VPROF_CUPTI_KINDS=DEVICE) ;;
        nonvml)
          env=(LD_LIBRARY_PATH="${NONVML_DIR:?}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
               FAKE_NVML_FAIL=init) ;;
        all) env=(VPROF_CUPTI_KINDS=all) ;;
        nogpu) env=(VPROF_GPU=0) ;;
        torchprof) pre="" flag="--torch-profiler" ;;
        baseline) pre="${BASELINE_LIB:?BASELINE_LIB names the other libvprof.so}" ;;
      esac
      out=/tmp/cm-$workload-$mode
      rm -rf "$out"
      v=$(env "${env[@]}" LD_PRELOAD="$pre" VPROF_OUTPUT_DIR="$out" \
            python3 "bench/workloads/$workload.py" $flag 2>/dev/null | awk '/_ms / {print $2}')
      echo "round $round $workload $mode ${v:-failed}"
    done
  done
done
