"""How far GPU timestamps in a vprof trace can be from the host clock.

One GPU. Each of ROUNDS rounds reads CLOCK_MONOTONIC (vprof's clock), runs
one spin kernel (torch.cuda._sleep), synchronises and reads the clock again;
the windows are written as JSON to argv[1]. A kernel's recorded [start, end]
must lie inside its window; if GPU times were shifted by e, then
start - t0 = launch latency + e and t1 - end = wake-up latency - e, both
latencies >= 0, so e lies in [-min(start - t0), min(t1 - end)]
(bench/clock_error.py computes that from the trace).
"""
import json
import sys
import time

import torch

ROUNDS, SPIN_CYCLES = 200, 200_000


def main():
    torch.cuda.init()
    torch.cuda._sleep(SPIN_CYCLES)  # load the kernel before timing
    torch.cuda.synchronize()
    windows = []
    for _ in range(ROUNDS):
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        torch.cuda._sleep(SPIN_CYCLES)
        torch.cuda.synchronize()
        windows.append([t0, time.clock_gettime_ns(time.CLOCK_MONOTONIC)])
    with open(sys.argv[1], "w") as f:
        json.dump({"spin_kernels_before": 1, "windows": windows}, f)
    print(f"clock_check rounds {ROUNDS}")


if __name__ == "__main__":
    main()
