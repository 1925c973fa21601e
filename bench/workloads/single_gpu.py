"""One-GPU workload for vprof's GPU capture.

cuBLAS GEMMs, elementwise kernels, a Triton kernel from torch.compile, a
CUDA-graph replay and NVTX ranges. With --torch-profiler-out FILE, the whole
run is wrapped in torch.profiler (CUDA activities) and the count and total
time of the GPU activities it saw are written to FILE; without it, the
program knows nothing of any profiler.
"""
import argparse

import torch

from profiler_counts import measured, run_profiled

ITERS = 50


def step(a, b, fused):
    torch.cuda.nvtx.range_push("gemm")
    c = a @ b  # cuBLAS
    torch.cuda.nvtx.range_pop()
    d = torch.relu(c) * 2.0 + 1.0  # elementwise kernels
    return fused(d)  # Triton (torch.compile)


def run():
    torch.manual_seed(0)
    a = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    fused = torch.compile(lambda x: torch.sigmoid(x) * x + 0.5)
    out = None
    for _ in range(ITERS):
        out = step(a, b, fused)
    # A CUDA graph of a few kernels, replayed.
    static_x = torch.randn(1 << 20, device="cuda")
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # warm-up on a side stream, as PyTorch requires
            static_y = static_x * 3 + 1
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        static_y = static_x * 3 + 1
        static_y = static_y.sin()
    for _ in range(20):
        g.replay()
    torch.cuda.synchronize()
    return float(out.float().sum().item()), float(static_y.sum().item())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-profiler-out")
    args = ap.parse_args()
    result = run_profiled(run, args.torch_profiler_out) if args.torch_profiler_out else measured(run)
    print("single_gpu: %.3e %.3e" % result)


if __name__ == "__main__":
    main()
