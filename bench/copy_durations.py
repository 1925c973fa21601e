"""Copy durations of bench/workloads/copy_kinds.py as each source measured them.

  copy_durations.py record MODE ROUND WORKLOAD_STDOUT [EXPORT.json | TORCHPROF.json]
      one JSON line: the run's CUDA-event times and, for a vprof run (its Chrome export) or a
      torch.profiler run (the workload's --torch-profiler-out file), the profiler's copy records
      inside the "measured" range, each matched to its copy by order: the workload makes every
      kind's copies in turn, 256 KiB then 4 MiB, so a record name's n-th copies are the n-th
      kind of that name.
  copy_durations.py summary ROUNDS.jsonl
      per mode and kind: the median over rounds of the summed event time and of the summed
      profiler time, their ratio, and the profiler's sum against torch.profiler's (median
      of rounds; every round's ratio listed).
"""
import json
import statistics
import sys

# The record name CUPTI gives each kind of copy (the Chrome export and torch.profiler both use it).
RECORD_NAMES = {
    "h2d_pageable": "Memcpy HtoD (Pageable -> Device)",
    "h2d_pinned": "Memcpy HtoD (Pinned -> Device)",
    "d2h_pageable": "Memcpy DtoH (Device -> Pageable)",
    "d2h_pinned": "Memcpy DtoH (Device -> Pinned)",
    "d2d": "Memcpy DtoD (Device -> Device)",
}


def kind_base(kind):
    return kind.rsplit("_", 1)[0]


def records_by_name(path):
    data = json.load(open(path))
    if "memcpy" in data:  # torch.profiler's file
        return data["memcpy"]
    events = data["traceEvents"]
    window = next((e["ts"], e["ts"] + e["dur"]) for e in events
                  if e.get("cat") == "nvtx" and e["name"] == "measured")
    seen = {}
    for e in sorted((e for e in events if e.get("cat") == "gpu_memcpy"), key=lambda e: e["ts"]):
        if window[0] <= e["ts"] <= window[1]:
            seen.setdefault(e["name"], []).append(e["dur"])
    return seen


def record(mode, round_, stdout_path, profile_path=None):
    events = json.loads(open(stdout_path).read().strip().splitlines()[-1])["events_us"]
    line = {"mode": mode, "round": int(round_), "events_us": events}
    if profile_path:
        by_name = records_by_name(profile_path)
        taken = {}
        profiler = {}
        for kind, times in events.items():
            name = RECORD_NAMES[kind_base(kind)]
            start = taken.get(name, 0)
            got = by_name.get(name, [])[start:start + len(times)]
            taken[name] = start + len(times)
            profiler[kind] = got
        line["profiler_us"] = profiler
    print(json.dumps(line))


def summary(path):
    rounds = [json.loads(line) for line in open(path) if line.strip()]
    modes = list(dict.fromkeys(r["mode"] for r in rounds))
    kinds = list(rounds[0]["events_us"])
    torch_sums = {}
    for r in rounds:
        if r["mode"] == "torchprof":
            for kind in kinds:
                torch_sums.setdefault(kind, {})[r["round"]] = sum(r["profiler_us"][kind])
    print(f"{'mode':12} {'kind':22} {'n':>3} {'events µs':>10} {'profiler µs':>12} "
          f"{'prof/events':>11} {'prof/torch':>10}  rounds (prof/torch)")
    for mode in modes:
        for kind in kinds:
            mine = [r for r in rounds if r["mode"] == mode]
            ev = statistics.median(sum(r["events_us"][kind]) for r in mine)
            counts = {len(r.get("profiler_us", {}).get(kind, [])) for r in mine}
            if "profiler_us" not in mine[0]:
                print(f"{mode:12} {kind:22} {'':>3} {ev:>10.1f}")
                continue
            pr = statistics.median(sum(r["profiler_us"][kind]) for r in mine)
            vs_torch = [sum(r["profiler_us"][kind]) / statistics.median(
                torch_sums[kind].values()) for r in mine] if kind in torch_sums else []
            print(f"{mode:12} {kind:22} {'/'.join(map(str, sorted(counts))):>3} {ev:>10.1f} "
                  f"{pr:>12.1f} {pr / ev:>11.3f} "
                  f"{statistics.median(vs_torch) if vs_torch else float('nan'):>10.3f}  "
                  + " ".join(f"{v:.3f}" for v in vs_torch))


if __name__ == "__main__":
    if sys.argv[1] == "record":
        record(*sys.argv[2:])
    elif sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
