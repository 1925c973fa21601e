"""Bounds the error of GPU timestamps in a vprof trace against the host clock.

Input: the Chrome export of the clock_check.py run (`vprof export --format
chrome`) and the windows clock_check.py wrote. Each spin kernel must lie in
its window [t0, t1] (CLOCK_MONOTONIC ns). With e the error of the GPU→host
conversion, start - t0 = launch latency + e and t1 - end = wake-up latency - e,
both latencies >= 0, so e is in [-min(start - t0), +min(t1 - end)].

    python3 bench/clock_error.py EXPORT.json WINDOWS.json
"""
import json
import statistics
import sys


def main():
    export, windows = (json.load(open(p)) for p in sys.argv[1:3])
    origin = export["otherData"]["origin_ns"]
    spins = sorted((round(e["ts"] * 1000) + origin, round((e["ts"] + e["dur"]) * 1000) + origin)
                   for e in export["traceEvents"]
                   if e.get("cat") == "kernel" and "spin_kernel" in e["name"])
    spins = spins[windows["spin_kernels_before"]:]
    wins = windows["windows"]
    if len(spins) != len(wins):
        sys.exit(f"{len(spins)} spin kernels in the trace, {len(wins)} windows")
    lead = [start - t0 for (start, _), (t0, _) in zip(spins, wins)]
    lag = [t1 - end for (_, end), (_, t1) in zip(spins, wins)]
    outside = sum(1 for a, b in zip(lead, lag) if a < 0 or b < 0)
    print(f"kernels {len(spins)}, outside their window {outside}")
    print(f"start - t0: min {min(lead) / 1e3:.2f} us, median {statistics.median(lead) / 1e3:.2f} us")
    print(f"t1 - end:   min {min(lag) / 1e3:.2f} us, median {statistics.median(lag) / 1e3:.2f} us")
    print(f"GPU->host clock error e in [{-min(lead) / 1e3:.2f}, +{min(lag) / 1e3:.2f}] us")


if __name__ == "__main__":
    main()
