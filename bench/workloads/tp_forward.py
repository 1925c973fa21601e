"""Tensor-parallel-style forward (torchrun, 2 GPUs).

Each rank holds a column shard of the first weight and a row shard of the
second, as Megatron's parallel MLP does: the forward all-reduces the partial
outputs, and every few layers all-gathers a sequence-sharded activation.
NVTX ranges mark each forward. --torch-profiler-out PREFIX wraps the run in
torch.profiler (CUDA) and writes its GPU counts to PREFIX.rank<R>.json.
Prints, on rank 0, a checksum of the output (identical with or without a
profiler) and the number of collectives each rank issued.
"""
import argparse
import os

import torch
import torch.distributed as dist

from profiler_counts import measured, run_profiled

HIDDEN, FFN, TOKENS, LAYERS, STEPS = 4096, 8192, 2048, 4, 20


def forward(x, shards, world):
    calls = 0
    for i, (w1, w2) in enumerate(shards):
        h = torch.nn.functional.gelu(x @ w1)  # column-parallel
        y = h @ w2  # row-parallel: a partial sum on each rank
        dist.all_reduce(y)
        calls += 1
        if i % 2 == 1:  # sequence-parallel style: gather the token shards
            part = y[: TOKENS // world].contiguous()
            gathered = torch.empty(TOKENS // world * world, HIDDEN, device=y.device, dtype=y.dtype)
            dist.all_gather_into_tensor(gathered, part)
            calls += 1
            y = gathered
        x = y * (1.0 / HIDDEN**0.5)
    return x, calls


def run():
    world, rank = dist.get_world_size(), dist.get_rank()
    gen = torch.Generator(device="cuda").manual_seed(1234 + rank)
    shards = [(torch.randn(HIDDEN, FFN // world, device="cuda", dtype=torch.bfloat16, generator=gen)
               * 0.02,
               torch.randn(FFN // world, HIDDEN, device="cuda", dtype=torch.bfloat16, generator=gen)
               * 0.02) for _ in range(LAYERS)]
    x = torch.randn(TOKENS, HIDDEN, device="cuda", dtype=torch.bfloat16,
                    generator=torch.Generator(device="cuda").manual_seed(7))
    total = 0
    with torch.no_grad():
        for _ in range(STEPS):
            torch.cuda.nvtx.range_push("forward")
            out, calls = forward(x, shards, world)
            torch.cuda.nvtx.range_pop()
            total += calls
    torch.cuda.synchronize()
    return float(out.float().abs().sum().item()), total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-profiler-out")
    args = ap.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    if args.torch_profiler_out:
        checksum, calls = run_profiled(run, f"{args.torch_profiler_out}.rank{dist.get_rank()}.json")
    else:
        checksum, calls = measured(run)
    if dist.get_rank() == 0:
        print(f"tp_forward checksum {checksum:.6e} collectives_per_rank {calls}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
