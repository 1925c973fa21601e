"""Bus bandwidth of torch.distributed collectives by size (torchrun, 2 GPUs).

all_reduce, all_gather, reduce_scatter and broadcast from 4 KiB to 1 GiB
(x4 steps). Each size: WARMUP calls, then ITERS calls each timed by its own
pair of CUDA events on the current stream. A spin kernel runs ahead of each
timed call, so the events and the collective are queued before the GPU
reaches them: the time is the collective's, not the host's launch gaps
(which are most of a small collective's wall time). Rank 0 writes one JSON line per
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--max-bytes", type=int, default=SIZES[-1])
    ap.add_argument("--ops", default="all_reduce,all_gather,reduce_scatter,broadcast")
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
            events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                      for _ in range(ITERS)]
            for start, end in events:
                torch.cuda._sleep(SPIN_CYCLES)
                start.record()
                call()
                end.record()
            torch.cuda.synchronize()
            mean_us = sum(s.elapsed_time(e) for s, e in events) * 1e3 / ITERS
            algbw = s_bytes / (mean_us * 1e-6) / 1e9
            lines.append({"op": op, "bytes": s_bytes, "calls": WARMUP + ITERS, "mean_us": mean_us,
                          "algbw_gbps": algbw, "busbw_gbps": algbw * bus_factor(op, world)})
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
