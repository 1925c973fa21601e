"""Copies of every kind PyTorch makes, one at a time, for holding a profiler's copy durations
against CUDA events and torch.profiler: host-to-device from pageable and from pinned memory,
device-to-host into pageable and into pinned memory, and device-to-device, at 256 KiB and 4 MiB,
--reps of each (after 3 of each as warm-up), each copy alone on the GPU (synchronized before
and after) and bracketed by two CUDA events on its stream, inside an NVTX range "measured".

Prints one JSON line: {"events_us": {kind: [µs per copy, in order]}}. With --torch-profiler-out
FILE the measured part runs inside torch.profiler (CUDA activities) and FILE gets
{"memcpy": {name: [µs per copy, in order]}}, the names as CUPTI's memcpy records give them
("Memcpy HtoD (Pageable -> Device)")."""
import argparse
import json

import torch

SIZES = {"256KiB": 256 << 10, "4MiB": 4 << 20}


def copies():
    """(kind, copy function) for every kind and size; each function makes one copy."""
    made = []
    for size_name, size in SIZES.items():
        pageable = torch.ones(size, dtype=torch.uint8)
        pinned = torch.ones(size, dtype=torch.uint8).pin_memory()
        device = torch.ones(size, dtype=torch.uint8, device="cuda")
        device_out = torch.empty_like(device)
        pageable_out = torch.empty(size, dtype=torch.uint8)
        pinned_out = torch.empty(size, dtype=torch.uint8).pin_memory()
        made += [
            (f"h2d_pageable_{size_name}", lambda d=device_out, s=pageable: d.copy_(s)),
            (f"h2d_pinned_{size_name}",
             lambda d=device_out, s=pinned: d.copy_(s, non_blocking=True)),
            (f"d2h_pageable_{size_name}", lambda d=pageable_out, s=device: d.copy_(s)),
            (f"d2h_pinned_{size_name}",
             lambda d=pinned_out, s=device: d.copy_(s, non_blocking=True)),
            (f"d2d_{size_name}", lambda d=device_out, s=device: d.copy_(s)),
        ]
    return made


def timed(made, reps):
    stream = torch.cuda.current_stream()
    times = {kind: [] for kind, _ in made}
    for kind, copy in made:
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record(stream)
            copy()
            end.record(stream)
            torch.cuda.synchronize()
            times[kind].append(start.elapsed_time(end) * 1e3)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--torch-profiler-out")
    args = ap.parse_args()
    made = copies()
    timed(made, 3)
    torch.cuda.synchronize()

    def measured():
        torch.cuda.nvtx.range_push("measured")
        try:
            return timed(made, args.reps)
        finally:
            torch.cuda.nvtx.range_pop()

    if args.torch_profiler_out:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            times = measured()
        seen = {}
        for e in prof.events():
            if e.device_type.name == "CUDA" and e.name.startswith("Memcpy"):
                seen.setdefault(e.name, []).append(e.device_time)
        with open(args.torch_profiler_out, "w") as f:
            json.dump({"memcpy": seen}, f)
    else:
        times = measured()
    print(json.dumps({"events_us": times}))


if __name__ == "__main__":
    main()
