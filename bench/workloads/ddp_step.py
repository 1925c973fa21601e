"""DDP training step time (torchrun, 2+ GPUs): an MLP big enough that a
step is compute-bound with bucketed all-reduce overlapping backward. Prints,
on rank 0, the median step time in ms over 30 steps after 10 warm-up steps.
--torch-profiler wraps the timed steps in torch.profiler (CPU + CUDA)."""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-profiler", action="store_true")
    args = ap.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    layers = []
    for _ in range(8):
        layers += [nn.Linear(4096, 4096), nn.GELU()]
    model = DDP(nn.Sequential(*layers).cuda().to(torch.bfloat16), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)

    def step():
        opt.zero_grad(set_to_none=True)
        model(x).float().pow(2).mean().backward()
        opt.step()

    for _ in range(10):
        step()
    times = []

    def timed():
        for _ in range(30):
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
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
