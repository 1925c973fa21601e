"""Bus bandwidth of torch.distributed collectives by size (torchrun, 2 GPUs).

all_reduce, all_gather, reduce_scatter and broadcast from 4 KiB to 1 GiB
(x4 steps). Each size: WARMUP calls, then the time of the collective itself,
measured one of three ways (--timing):
- loop (default), as nccl-tests does: a spin kernel holds the GPU while the
  host queues one untimed call and then ITERS calls between two CUDA events.
  The untimed call absorbs the ranks' different spin ends (their GPUs run
  the spin at different clocks), so the timed calls start together on every
  rank and run back to back: mean = elapsed / ITERS.
- each: every call timed by its own pair of events, a spin kernel ahead of
  each. Rank 0's time then includes waiting inside the kernel for a rank
  whose spin ended later: at a few µs per small call, most of it. Kept for
  the overhead runs (sweep_overhead.py), which compare like with like.
- aligned: every call timed by its own pair of events, right after an
  untimed call of the same collective (a spin kernel ahead of the pair lets
  the host queue both). The untimed call ends at nearly the same moment on
  every rank, so the timed one starts together everywhere and its events
  hold the collective alone: no rank's wait, no launch gap between calls.
  What vprof's cross-rank GPU time measures; busbw from the median call.
Both keep the host's launch gaps out (most of a small collective's wall time). Rank 0 writes one JSON line per
(op, size) to OUT: bytes S as nccl-tests defines it (the larger buffer
for all_gather / reduce_scatter), mean GPU time, algbw and busbw, so the
reporter's figures can be held against the workload's own timing.
--max-bytes N stops the sweep at N bytes (small-message overhead runs);
--ops picks the collectives (NCCL_ALGO=Tree has no all_gather, for one).
"""
import argparse
import json
import os

import torch
import torch.distributed as dist

WARMUP, ITERS = 5, 20
LOOP_SPIN_CYCLES = 20_000_000  # about 10 ms: longer than queueing ITERS + 1 calls
SPIN_CYCLES = 1_000_000  # about 0.5 ms on an H200: longer than a call's host launch
SIZES = [4096 * 4**i for i in range(10)]  # 4 KiB .. 1 GiB


def bus_factor(op, n):
    return {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n,
            "reduce_scatter": (n - 1) / n, "broadcast": 1.0}[op]


def make_call(op, s_bytes, world):
    elems = s_bytes // 4
    if op == "all_reduce":
        t = torch.ones(elems, device="cuda")
        return lambda: dist.all_reduce(t)
    if op == "broadcast":
        t = torch.ones(elems, device="cuda")
        return lambda: dist.broadcast(t, src=0)
    big = torch.ones(elems, device="cuda")
    small = torch.ones(elems // world, device="cuda")
    if op == "all_gather":
        return lambda: dist.all_gather_into_tensor(big, small)
    return lambda: dist.reduce_scatter_tensor(small, big)


def timed_event():
    return torch.cuda.Event(enable_timing=True)


def time_loop(call):
    start, end = timed_event(), timed_event()
    torch.cuda._sleep(LOOP_SPIN_CYCLES)
    call()  # untimed: absorbs the ranks' different spin ends
    start.record()
    for _ in range(ITERS):
        call()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / ITERS


def time_each(call):
    events = [(timed_event(), timed_event()) for _ in range(ITERS)]
    for start, end in events:
        torch.cuda._sleep(SPIN_CYCLES)
        start.record()
        call()
        end.record()
    torch.cuda.synchronize()
    return sum(s.elapsed_time(e) for s, e in events) * 1e3 / ITERS


def time_aligned(call):
    events = [(timed_event(), timed_event()) for _ in range(ITERS)]
    for start, end in events:
        torch.cuda._sleep(SPIN_CYCLES)
        call()  # untimed: the ranks leave it together
        start.record()
        call()
        end.record()
    torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) * 1e3 for s, e in events)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--max-bytes", type=int, default=SIZES[-1])
    ap.add_argument("--ops", default="all_reduce,all_gather,reduce_scatter,broadcast")
    ap.add_argument("--timing", choices=["loop", "each", "aligned"], default="loop")
    args = ap.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    world = dist.get_world_size()
    lines = []
    for op in args.ops.split(","):
        for s_bytes in [s for s in SIZES if s <= args.max_bytes]:
            call = make_call(op, s_bytes, world)
            for _ in range(WARMUP):
                call()
            line = {"op": op, "bytes": s_bytes}
            if args.timing == "aligned":
                times_us = time_aligned(call)
                line.update(calls=WARMUP + 2 * ITERS, mean_us=sum(times_us) / ITERS,
                            median_us=times_us[(ITERS - 1) // 2])
                time_us = line["median_us"]
            else:
                time_us = time_loop(call) if args.timing == "loop" else time_each(call)
                line.update(calls=WARMUP + ITERS + (1 if args.timing == "loop" else 0),
                            mean_us=time_us)
            algbw = s_bytes / (time_us * 1e-6) / 1e9
            line.update(algbw_gbps=algbw, busbw_gbps=algbw * bus_factor(op, world))
            lines.append(line)
            del call
            torch.cuda.empty_cache()
    if dist.get_rank() == 0:
        with open(args.out, "w") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")
        print(f"nccl_sweep points {len(lines)}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
