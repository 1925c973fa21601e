"""Launch-bound loop: 5,000 tiny elementwise kernels from Python, timed with
host clocks around a synchronised loop; prints the median of 7 repetitions
in ms. --torch-profiler wraps the repetitions in torch.profiler (CPU + CUDA
activities), the anchor FIELD-NOTES measured at +22%. --reps sets the number of repetitions;
--nvtx marks each one with an NVTX range named train_step, so that under deep windows the
report compares repetitions inside and outside them (bench/device_inprocess_cost.sh)."""
import argparse
import statistics
import time

import torch

import torch_profiler_option

KERNELS = 5000


def loop(x, reps, nvtx):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        if nvtx:
            torch.cuda.nvtx.range_push("train_step")
        for _ in range(KERNELS):
            x.add_(1.0)
        torch.cuda.synchronize()
        if nvtx:
            torch.cuda.nvtx.range_pop()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-profiler", action="store_true")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--nvtx", action="store_true")
    args = ap.parse_args()
    x = torch.zeros(1, device="cuda")
    for _ in range(1000):  # warm-up
        x.add_(1.0)
    ms = torch_profiler_option.run(args.torch_profiler, lambda: loop(x, args.reps, args.nvtx))
    print(f"launch_loop_ms {ms:.2f}")


if __name__ == "__main__":
    main()
