#!/usr/bin/env python3
"""Prints vprof's GPU memory by phase (a `vprof report --format json`, read on stdin) next to
what the workload's allocator said per phase (its log, the argument: the `phase_reserved_bytes
PHASE MOST LEAST` lines llama_step.py --phase-memory prints). Held from CUDA (MEMORY2) counts
every allocation of the process, PyTorch's and the libraries' own, so it may exceed PyTorch's
reserve by a constant: the difference is printed per phase, and should be the same in each.
Used by bench/device_phase_memory.sh.

Usage: vprof report DIR --format json | phase_memory_figures.py WORKLOAD.log
"""
import json
import sys

MIB = 2**20


def reserved_by_phase(log_path):
    phases = {}
    for line in open(log_path):
        words = line.split()
        if len(words) == 4 and words[0] == "phase_reserved_bytes":
            phases[words[1]] = (int(words[2]), int(words[3]))
    return phases


def main():
    report = json.load(sys.stdin)
    torch_phases = reserved_by_phase(sys.argv[1])
    for rank in (report.get("steps") or {}).get("ranks", []):
        print(f"{rank['file']}: {len(rank['steps'])} measured steps")
        print("  phase (source, steps) | PyTorch most reserved | vprof most held | difference"
              " | PyTorch least | vprof least held | difference | NVML samples, peak in use")
        for phase in rank["phase_memory"]:
            name = phase["phase"]
            source = "nvtx" if phase["from_nvtx"] else "inferred"
            most, least = torch_phases.get(name, (None, None))
            held = phase["held"]
            cells = [f"{name} ({source}, {phase['steps']})"]
            for torch_figure, key in ((most, "peak_bytes"), (least, "low_bytes")):
                ours = held[key] if held else None
                cells.append("-" if torch_figure is None else f"{torch_figure / MIB:.1f} MiB")
                cells.append("-" if ours is None else f"{ours / MIB:.1f} MiB")
                cells.append("-" if None in (ours, torch_figure)
                             else f"{(ours - torch_figure) / MIB:+.1f} MiB")
            sampled = phase["device_memory"]
            cells.append("none" if not sampled else
                         f"{sampled['samples']}, {sampled['peak_used_bytes'] / MIB:.1f} MiB")
            print("  " + " | ".join(cells))


if __name__ == "__main__":
    main()
