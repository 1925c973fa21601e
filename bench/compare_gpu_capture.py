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
(`VPROF_CUPTI_KINDS=all` records the nodes). The lines "all_kernels" and
"all_memsets" add to the kernels and memsets recorded one by one those the
replays ran, from each replay's "kernels" and "memsets" (its graph's node
list): what torch.profiler counts.

With --torch, two torch.profiler runs' files are held against each other:
how far two runs of the workload differ, the floor under any comparison of
vprof's run with torch.profiler's.

    python3 bench/compare_gpu_capture.py EXPORT.json TORCHPROF.rank0.json [...rank1.json]
    python3 bench/compare_gpu_capture.py --torch TORCHPROF_A.json TORCHPROF_B.json
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


def print_row(who, kind, theirs, ours):
    dc = (ours["count"] - theirs["count"]) / theirs["count"] * 100 if theirs["count"] else 0.0
    dt = (ours["time_us"] - theirs["time_us"]) / theirs["time_us"] * 100 if theirs["time_us"] else 0.0
    print(f"{who:<8} {kind:11} {theirs['count']:>10} {ours['count']:>8} {dc:>+6.2f}% "
          f"{theirs['time_us']:>14.1f} {ours['time_us']:>12.1f} {dt:>+6.2f}%")


def print_header(ours_name):
    print(f"{'process':8} {'kind':11} {'torch.prof':>10} {ours_name:>8} {'diff':>7} "
          f"{'torch.prof µs':>14} {ours_name + ' µs':>12} {'diff':>7}")


def compare_torch_runs(first, second):
    first, second = json.load(open(first)), json.load(open(second))
    print_header("run 2")
    empty = {"count": 0, "time_us": 0.0}
    for kind in ["nccl_kernel", *KINDS.values()]:
        print_row("torch", kind, first.get(kind, empty), second.get(kind, empty))


def main():
    if sys.argv[1] == "--torch":
        compare_torch_runs(sys.argv[2], sys.argv[3])
        return
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
    replay_nodes = {pid: {"kernel": 0, "memset": 0} for pid in windows}
    for e in events:
        kind = kind_of(e)
        if kind is None or e["pid"] not in windows:
            continue
        lo, hi = windows[e["pid"]]
        if lo <= e["ts"] <= hi:
            ours[e["pid"]][kind]["count"] += 1
            ours[e["pid"]][kind]["time_us"] += e["dur"]
            if kind == "graph_replay":
                for node in replay_nodes[e["pid"]]:
                    replay_nodes[e["pid"]][node] += e.get("args", {}).get(node + "s", 0)
    print_header("vprof")
    empty = {"count": 0, "time_us": 0.0}
    for pid, path in zip(sorted(windows), sys.argv[2:]):
        theirs = json.load(open(path))
        for kind in kinds:
            print_row(pid, kind, theirs.get(kind, empty), ours[pid][kind])
        if ours[pid]["graph_replay"]["count"]:
            for node, ran in replay_nodes[pid].items():
                print_row(pid, f"all_{node}s", {"count": theirs.get(node, empty)["count"], "time_us": 0.0},
                          {"count": ours[pid][node]["count"] + ran, "time_us": 0.0})


if __name__ == "__main__":
    main()
