"""A loop whose caching allocator gives memory back and takes it again every
step: each NVTX range "step" allocates a --mib MiB tensor, uses it, frees
it and empties PyTorch's cache (torch.cuda.empty_cache), so every step makes
one cudaMalloc and one cudaFree of that size (bench/device_memory.sh checks
vprof finds them). Prints the step median and what PyTorch counted."""
import argparse
import statistics
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--mib", type=int, default=1024)
    args = ap.parse_args()
    base = torch.ones(1 << 20, device="cuda")  # held throughout: 4 MiB
    elems = args.mib * (1 << 20) // 4
    torch.cuda.synchronize()
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("step")
        big = torch.empty(elems, device="cuda")
        big.fill_(1.0)
        (big[:1 << 20] + base).sum().item()
        del big
        torch.cuda.empty_cache()
        torch.cuda.nvtx.range_pop()
        times.append((time.perf_counter() - t0) * 1e3)
    stats = torch.cuda.memory_stats()
    print(f"churn_step_ms {statistics.median(times):.2f}")
    print(f"segment_allocs {stats['segment.all.allocated']}")
    print(f"segment_frees {stats['segment.all.freed']}")
    print(f"max_memory_reserved_bytes {torch.cuda.max_memory_reserved()}")


if __name__ == "__main__":
    main()
