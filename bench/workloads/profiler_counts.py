"""What torch.profiler sees of a workload, for holding vprof's counts against.

measured(fn) runs fn inside an NVTX range named "measured", with or without a
profiler, so vprof's records can be cut to the same window.
run_profiled(fn, out) does that inside torch.profiler (CUDA activities only)
and writes the number and summed device time of the GPU activities it saw, by
kind (nccl_kernel, kernel, memcpy, memset), to a JSON file. NCCL kernels are
apart because their time includes waiting for the other ranks, which differs
from run to run. The workloads call it only when
asked to (--torch-profiler-out), so a run under vprof knows nothing of any
profiler.
"""
import json

import torch
from torch.profiler import ProfilerActivity, profile


def measured(fn):
    torch.cuda.nvtx.range_push("measured")
    try:
        return fn()
    finally:
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()


def kind_of(event):
    name = event.name.lower()
    if name.startswith("memcpy"):
        return "memcpy"
    if name.startswith("memset"):
        return "memset"
    return "nccl_kernel" if "nccl" in name else "kernel"


def run_profiled(fn, out_path):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        result = measured(fn)
    counts = {}
    for e in prof.events():
        if e.device_type.name != "CUDA":
            continue
        c = counts.setdefault(kind_of(e), {"count": 0, "time_us": 0.0})
        c["count"] += 1
        c["time_us"] += e.device_time
    with open(out_path, "w") as f:
        json.dump(counts, f)
    return result
