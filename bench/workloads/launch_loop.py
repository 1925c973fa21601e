"""Launch-bound loop: 5,000 tiny elementwise kernels from Python, timed with
host clocks around a synchronised loop; prints the median of 7 repetitions
in ms. --torch-profiler wraps the repetitions in torch.profiler (CPU + CUDA
activities), the anchor FIELD-NOTES measured at +22%."""
import argparse
import statistics
import time

import torch

import torch_profiler_option

KERNELS, REPS = 5000, 7


def loop(x):
    times = []
    for _ in range(REPS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(KERNELS):
            x.add_(1.0)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-profiler", action="store_true")
    args = ap.parse_args()
    x = torch.zeros(1, device="cuda")
    for _ in range(1000):  # warm-up
        x.add_(1.0)
    ms = torch_profiler_option.run(args.torch_profiler, lambda: loop(x))
    print(f"launch_loop_ms {ms:.2f}")


if __name__ == "__main__":
    main()
