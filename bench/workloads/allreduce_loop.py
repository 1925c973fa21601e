"""Host-side cost of small torch.distributed all-reduces (run under torchrun).

Prints, on rank 0, the median over 5 rounds of the mean host time per
dist.all_reduce call on a 4-byte tensor (enqueue cost; the GPU is synchronised
only at the end of each round). Run bare and under vprof, interleaved, to see
what the preload adds per NCCL call on real hardware.
"""
import os
import statistics
import time

import torch
import torch.distributed as dist

CALLS, ROUNDS = 2000, 5


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    x = torch.ones(1, device="cuda")
    for _ in range(200):  # warm up NCCL's channels and PyTorch's caches
        dist.all_reduce(x)
    torch.cuda.synchronize()
    per_call = []
    for _ in range(ROUNDS):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(CALLS):
            dist.all_reduce(x)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        per_call.append((t1 - t0) / CALLS * 1e9)
    if dist.get_rank() == 0:
        print(f"allreduce_host_ns_per_call {statistics.median(per_call):.0f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
