"""Holds vprof's GPU bus bandwidth per size against the workload's own timing.

Inputs: `vprof report --format json` of an nccl_sweep.py run, and the JSON
lines nccl_sweep.py wrote (its own CUDA-event timing on rank 0). Prints one
row per (op, size): the workload's busbw, vprof's collective_busbw_gbps (the
cross-rank GPU time: last rank's kernel start to last kernel end) and
gpu_busbw_gbps (each rank's own kernel time, waits for the others included)
for the size bucket holding S, and their differences from the workload's.

    python3 bench/compare_busbw.py REPORT.json SWEEP.jsonl
"""
import json
import sys

OPS = {"all_reduce": ["ncclAllReduce"], "all_gather": ["ncclAllGather"],
       "reduce_scatter": ["ncclReduceScatter"], "broadcast": ["ncclBroadcast", "ncclBcast"]}


def main():
    report = json.load(open(sys.argv[1]))
    rows = [op for comm in report["communicators"] for op in comm["ops"]]
    print(f"{'op':15} {'S':>10} {'workload':>10} {'vprof':>10} {'diff':>7} "
          f"{'per-rank':>10} {'diff':>7}   (busbw, GB/s)")
    for line in open(sys.argv[2]):
        point = json.loads(line)
        s = point["bytes"]
        # vprof's S per collective: count x type size, x nranks for gather/scatter.
        match = [op for op in rows if op["op"] in OPS[point["op"]]
                 and op["size_bucket"]["min_bytes"] <= op["total_bytes"] // op["count"] == s]
        if len(match) != 1 or match[0].get("collective_busbw_gbps") is None:
            print(f"{point['op']:15} {s:>10} {point['busbw_gbps']:>10.2f} {'-':>10}")
            continue
        cells = []
        for key in ("collective_busbw_gbps", "gpu_busbw_gbps"):
            ours = match[0][key]
            diff = (ours - point["busbw_gbps"]) / point["busbw_gbps"] * 100
            cells.append(f"{ours:>10.2f} {diff:>+6.1f}%")
        print(f"{point['op']:15} {s:>10} {point['busbw_gbps']:>10.2f} {' '.join(cells)}")


if __name__ == "__main__":
    main()
