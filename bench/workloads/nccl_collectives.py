"""Real PyTorch + NCCL workload for vprof's NCCL interception (run under torchrun).

Makes a known number of collectives of known sizes through torch.distributed,
then a few steps of DDP training, and writes what it issued to
$VPROF_WORKLOAD_LOG/workload.rank<R>.json so the profiler's counts can be
checked against it. Nothing in here knows about vprof.

    torchrun --nproc-per-node 2 bench/workloads/nccl_collectives.py
"""
import json
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

ALL_REDUCE_CALLS = 40
BROADCAST_CALLS = 5
ALL_GATHER_CALLS = 5
REDUCE_SCATTER_CALLS = 5
DDP_STEPS = 10


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank, world = dist.get_rank(), dist.get_world_size()

    x = torch.ones(262144, device="cuda")  # 1 MiB of float32
    for _ in range(ALL_REDUCE_CALLS):
        dist.all_reduce(x)
    for _ in range(BROADCAST_CALLS):
        dist.broadcast(x, src=0)
    gathered = torch.empty(262144 * world, device="cuda")
    for _ in range(ALL_GATHER_CALLS):
        dist.all_gather_into_tensor(gathered, x)
    out = torch.empty(262144 // world, device="cuda")
    for _ in range(REDUCE_SCATTER_CALLS):
        dist.reduce_scatter_tensor(out, x)
    torch.cuda.synchronize()

    model = DDP(nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).cuda(),
                device_ids=[local_rank], bucket_cap_mb=4)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(DDP_STEPS):
        opt.zero_grad()
        model(torch.randn(64, 1024, device="cuda")).sum().backward()
        opt.step()
    torch.cuda.synchronize()

    log_dir = os.environ.get("VPROF_WORKLOAD_LOG")
    if log_dir:
        with open(os.path.join(log_dir, f"workload.rank{rank}.json"), "w") as f:
            json.dump({"rank": rank, "world": world, "all_reduce_1MiB": ALL_REDUCE_CALLS,
                       "broadcast_1MiB": BROADCAST_CALLS, "all_gather_1MiB": ALL_GATHER_CALLS,
                       "reduce_scatter_1MiB": REDUCE_SCATTER_CALLS, "ddp_steps": DDP_STEPS,
                       "nccl_version": ".".join(map(str, torch.cuda.nccl.version()))}, f)
    if rank == 0:
        print(f"nccl_collectives: world {world}, value {x[0].item():.1f}, done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
