"""Holds vprof's GPU activity against torch.profiler's on the same workload.

Inputs: the Chrome export of a vprof run (`vprof export --format chrome`) and
the JSON files profiler_counts.run_profiled wrote in a separate torch.profiler
run, one per rank in rank order. Both runs mark the compared window with the
NVTX range "measured"; vprof's kernels, copies and memsets that start inside
it are counted per process and compared by kind, NCCL kernels apart. vprof's
own kernels (its launch-cost calibration, run as CUDA starts, and collective
fingerprints) are not the program's: the export files them under
`vprof_kernel`, which is not counted; CUDA-graph replays that the
light default records whole (`graph_replay`) are counted on a line of their
own, since torch.profiler counts each node of them as a kernel
(`VPROF_CUPTI_KINDS=all` records the nodes).

    python3 bench/compare_gpu_capture.py EXPORT.json TORCHPROF.rank0.json [...rank1.json]
"""
import json
import sys

KINDS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}


def kind_of(event):
    if event.get("cat") == "graph_replay":
        return "graph_replay"
    kind = KINDS.get(event.get("cat"))
    if kind == "kernel" and "nccl" in event["name"].lower():
        return "nccl_kernel"
    return kind


def main():
    export = json.load(open(sys.argv[1]))
    events = export["traceEvents"]
    windows = {}
    for e in events:
        if e.get("cat") == "nvtx" and e["name"] == "measured":
            windows[e["pid"]] = (e["ts"], e["ts"] + e["dur"])
    if len(windows) != len(sys.argv) - 2:
        sys.exit(f"{len(windows)} processes with a 'measured' range, {len(sys.argv) - 2} torch.profiler files")
    kinds = ["nccl_kernel", *KINDS.values(), "graph_replay"]
    ours = {pid: {k: {"count": 0, "time_us": 0.0} for k in kinds} for pid in windows}
    for e in events:
        kind = kind_of(e)
        if kind is None or e["pid"] not in windows:
            continue
        lo, hi = windows[e["pid"]]
        if lo <= e["ts"] <= hi:
            ours[e["pid"]][kind]["count"] += 1
            ours[e["pid"]][kind]["time_us"] += e["dur"]
    print(f"{'process':8} {'kind':7} {'torch.prof':>10} {'vprof':>8} {'diff':>7} "
          f"{'torch.prof µs':>14} {'vprof µs':>12} {'diff':>7}")
    for pid, path in zip(sorted(windows), sys.argv[2:]):
        theirs = json.load(open(path))
        for kind in kinds:
            t = theirs.get(kind, {"count": 0, "time_us": 0.0})
            o = ours[pid][kind]
            dc = (o["count"] - t["count"]) / t["count"] * 100 if t["count"] else 0.0
            dt = (o["time_us"] - t["time_us"]) / t["time_us"] * 100 if t["time_us"] else 0.0
            print(f"{pid:<8} {kind:7} {t['count']:>10} {o['count']:>8} {dc:>+6.2f}% "
                  f"{t['time_us']:>14.1f} {o['time_us']:>12.1f} {dt:>+6.2f}%")


if __name__ == "__main__":
    main()
