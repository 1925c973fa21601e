"""DDP training step time (torchrun, 2+ GPUs): an MLP big enough that a
step is compute-bound with bucketed all-reduce overlapping backward. Prints,
on rank 0, the median step time in ms over 30 steps (--steps N) after 10
warm-up steps.
NVTX ranges mark each step's forward, backward and optimizer.
--torch-profiler wraps the timed steps in torch.profiler (CPU +
CUDA), for overhead comparisons; --torch-profiler-out PREFIX wraps the whole
run in torch.profiler (CUDA) and writes its GPU counts to PREFIX.rank<R>.json.
--no-nvtx leaves the NVTX ranges out (the reporter then finds steps from the
optimizer's kernels). --logprob-passes N runs N forward-only passes at the
start of each step, as an RL trainer computes log-probs (NVTX "log_probs");
--micro-batches M runs M forward/backward passes per step (gradient
accumulation, all-reduce on the last).
"""
import argparse
import contextlib
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from profiler_counts import measured, run_profiled

nvtx = torch.cuda.nvtx


class NoNvtx:
    @staticmethod
    def range_push(name):
        pass

    @staticmethod
    def range_pop():
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-profiler", action="store_true")
    ap.add_argument("--torch-profiler-out")
    ap.add_argument("--no-nvtx", action="store_true")
    ap.add_argument("--steps", type=int, default=30, help="timed steps")
    ap.add_argument("--logprob-passes", type=int, default=0)
    ap.add_argument("--micro-batches", type=int, default=1)
    args = ap.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    if args.torch_profiler_out:
        out = f"{args.torch_profiler_out}.rank{dist.get_rank()}.json"
        run_profiled(lambda: train(args), out)
    else:
        measured(lambda: train(args))
    dist.destroy_process_group()


def train(args):
    global nvtx
    if args.no_nvtx:
        nvtx = NoNvtx
    local_rank = int(os.environ["LOCAL_RANK"])
    layers = []
    for _ in range(8):
        layers += [nn.Linear(4096, 4096), nn.GELU()]
    model = DDP(nn.Sequential(*layers).cuda().to(torch.bfloat16), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)

    def step():
        nvtx.range_push("step")
        opt.zero_grad(set_to_none=True)
        if args.logprob_passes:
            nvtx.range_push("log_probs")
            with torch.no_grad():
                for _ in range(args.logprob_passes):
                    model(x).float().log_softmax(-1)
            nvtx.range_pop()
        for micro_batch in range(args.micro_batches):
            last = micro_batch == args.micro_batches - 1
            with contextlib.nullcontext() if last else model.no_sync():
                nvtx.range_push("forward")
                loss = model(x).float().pow(2).mean()
                nvtx.range_pop()
                nvtx.range_push("backward")
                loss.backward()
                nvtx.range_pop()
        nvtx.range_push("optimizer")
        opt.step()
        nvtx.range_pop()
        nvtx.range_pop()

    for _ in range(10):
        step()
    times = []

    def timed():
        for _ in range(args.steps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)

    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
            timed()
    else:
        timed()
    if dist.get_rank() == 0:
        print(f"ddp_step_ms {statistics.median(times):.3f}")


if __name__ == "__main__":
    main()
